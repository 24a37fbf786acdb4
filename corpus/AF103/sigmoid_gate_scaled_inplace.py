# AF103: a gating unit scales its sigmoid gate in place; sigmoid's backward needs that output.
import torch
import torch.nn as nn


class GatedUnit(nn.Module):
    def __init__(self, dim: int, temperature: float = 2.0):
        super().__init__()
        self.value = nn.Linear(dim, dim)
        self.gate = nn.Linear(dim, dim)
        self.temperature = temperature

    def forward(self, features):
        g = torch.sigmoid(self.gate(features))
        g.mul_(self.temperature)
        return self.value(features) * g


torch.manual_seed(0)
net = nn.Sequential(GatedUnit(12), nn.Linear(12, 1))
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
for it in range(4):
    x = torch.randn(32, 12)
    target = torch.randn(32, 1)
    loss = nn.functional.mse_loss(net(x), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
