# ok: each step squashes the usage tally with sigmoid before weighing it with the learned penalty, then bumps one column of the tally in place; sigmoid saves its own output and the product saves that output, never the tally, so backward is unaffected.
import torch
import torch.nn as nn


class UsagePenalizedDecoder(nn.Module):
    def __init__(self, slots=4, steps=3):
        super().__init__()
        self.score = nn.Linear(slots, slots)
        self.penalty = nn.Parameter(torch.full((slots,), 0.5))
        self.steps = steps

    def forward(self, x):
        usage = torch.zeros_like(x)
        logits = self.score(x)
        picks = []
        for step in range(self.steps):
            weighted = logits - torch.sigmoid(usage) * self.penalty
            picks.append(torch.softmax(weighted, dim=-1))
            usage[:, step] += 1.0
        return torch.stack(picks).mean(0)


if __name__ == "__main__":
    torch.manual_seed(0)
    decoder = UsagePenalizedDecoder()
    optimizer = torch.optim.SGD(decoder.parameters(), lr=0.1)
    for step in range(3):
        optimizer.zero_grad()
        loss = decoder(torch.randn(5, 4)).pow(2).mean()
        loss.backward()
        optimizer.step()
        print(step, loss.item())
