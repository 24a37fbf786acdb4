# AF103: CornerClip.forward writes clamped corners back into its argument after clamp saved a slice of it.
# af103_helpers/corner_preview.py calls it only under torch.no_grad(), but Localizer below calls it in its
# training forward, and the loss back-propagates through it: backward raises.
import torch
import torch.nn as nn


class CornerClip(nn.Module):
    def forward(self, boxes, size):
        boxes[:, 0] = torch.clamp(boxes[:, 0], min=0)
        boxes[:, 1] = torch.clamp(boxes[:, 1], max=size)
        return boxes


class Localizer(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 2)
        self.clip = CornerClip()

    def forward(self, x):
        return self.clip(self.fc(x) * 8, 8.0)


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Localizer()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    x, target = torch.randn(16, 6), torch.rand(16, 2) * 8
    for _ in range(3):
        loss = ((model(x) - target) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(round(loss.item(), 4))
