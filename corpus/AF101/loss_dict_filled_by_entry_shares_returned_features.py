# AF101: the module's forward returns a dict of losses filled entry by entry
# (`losses["fit"] = ...`) and the features the losses were computed from. The dict holds the
# graph of what was stored in it, which runs through the body: back-propagating the losses
# frees the body's graph, and the later backward through the features raises.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 4)
        self.head = nn.Linear(4, 1)

    def forward(self, x):
        features = torch.tanh(self.body(x))
        losses = {}
        losses["fit"] = self.head(features).pow(2).mean()
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
