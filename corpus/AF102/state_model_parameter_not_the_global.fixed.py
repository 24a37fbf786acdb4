# AF102: `train(model)` is given two models; the module-level `model` detaches the state its forward is
# handed, but the parameter `model` of `train` is whatever the caller passes: the second call hands a
# cell that keeps the state's graph, so the second iteration back-propagates into the freed first one.
import torch
import torch.nn as nn


class Truncating(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def _fresh(self, h):
        return h.detach()

    def forward(self, x, h):
        h = self._fresh(h)
        h = torch.tanh(self.lin(x) + h)
        return h, h


class Elman(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x, h):
        h = torch.tanh(self.lin(x) + h)
        return h, h


def train(model, steps=3):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    h = torch.zeros(2, 4)
    for _ in range(steps):
        h = h.detach()
        out, h = model(torch.randn(2, 4), h)
        loss = out.pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


model = Truncating()
train(model)
train(Elman())
