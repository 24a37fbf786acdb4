# AF101: the module's forward returns a dict of losses filled entry by entry
# (`losses["fit"] = ...`, `losses.update(...)`) from one network and features from another:
# the two elements share no node, so each backward walks a graph of its own.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 4)
        self.head = nn.Linear(4, 1)
        self.side = nn.Linear(4, 4)

    def forward(self, x):
        features = torch.tanh(self.body(x))
        other = torch.tanh(self.side(x))
        losses = {}
        losses["fit"] = self.head(other).pow(2).mean()
        losses.update(size=other.abs().mean())
        return losses, features


scorer = Scorer()
opt = torch.optim.SGD(scorer.parameters(), lr=0.1)
for step in range(3):
    losses, features = scorer(torch.randn(5, 4))
    opt.zero_grad()
    sum(losses.values()).backward()
    features.pow(2).mean().backward()
    opt.step()
    print(step)
