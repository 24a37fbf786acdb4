# verify: original=af101_two_losses codes=AF101 verdict=diverged  (injected: drops a loss term)
# Two heads on one trunk; the second backward runs through the freed graph.
import torch
from torch import nn

trunk = nn.Sequential(nn.Linear(4, 8), nn.Tanh())
head_a, head_b = nn.Linear(8, 1), nn.Linear(8, 1)
params = [*trunk.parameters(), *head_a.parameters(), *head_b.parameters()]
optimizer = torch.optim.SGD(params, lr=0.1)
for step in range(4):
    x = torch.randn(16, 4)
    features = trunk(x)
    loss_a = head_a(features).pow(2).mean()
    loss_b = (head_b(features) - 1).abs().mean()
    optimizer.zero_grad()
    loss_a.backward()
    optimizer.step()
