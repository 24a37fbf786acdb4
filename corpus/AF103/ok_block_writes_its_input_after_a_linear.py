# ok: a block of the same file rectifies its argument in place, but the caller hands it a Linear's output, which nothing saved; autograd has no objection.
import torch
import torch.nn as nn


class Rectify(nn.Module):
    def forward(self, h):
        h.clamp_(min=0.0)
        return h


class TwoLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.rectify = Rectify()
        self.fc2 = nn.Linear(8, 1)

    def forward(self, x):
        hidden = self.fc1(x)
        hidden = self.rectify(hidden)
        return self.fc2(hidden)


torch.manual_seed(0)
model = TwoLayer()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(2):
    loss = model(torch.randn(6, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
