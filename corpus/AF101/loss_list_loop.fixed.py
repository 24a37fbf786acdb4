# AF101: deep supervision: per-stage losses from one forward pass, back-propagated one by one in a loop.
import torch
import torch.nn as nn
import torch.nn.functional as F


class DeeplySupervised(nn.Module):
    def __init__(self, width=20, stages=3, classes=6):
        super().__init__()
        self.stages = nn.ModuleList(nn.Sequential(nn.Linear(width, width), nn.ReLU()) for _ in range(stages))
        self.exits = nn.ModuleList(nn.Linear(width, classes) for _ in range(stages))

    def forward(self, x):
        outputs = []
        for stage, exit_head in zip(self.stages, self.exits):
            x = stage(x)
            outputs.append(exit_head(x))
        return outputs


def main():
    torch.manual_seed(0)
    model = DeeplySupervised()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    for epoch in range(2):
        for _ in range(2):
            inputs = torch.randn(10, 20)
            targets = torch.randint(0, 6, (10,))
            optimizer.zero_grad()
            stage_losses = [F.cross_entropy(logits, targets) for logits in model(inputs)]
            sum(stage_losses).backward()
            optimizer.step()
            print(epoch, [round(l.item(), 4) for l in stage_losses])


if __name__ == "__main__":
    main()
