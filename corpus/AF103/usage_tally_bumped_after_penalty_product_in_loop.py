# AF103: a decoder keeps a per-slot usage tally in a fresh tensor; each step first multiplies the tally by a learned penalty (the product saves the tally for the penalty's gradient) and then bumps one column of it in place, so backward finds the saved tally changed.
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
            weighted = logits - usage * self.penalty
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
