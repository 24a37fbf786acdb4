# verify: codes=AF106 verdict=identical
# retain_graph=True on the only backward of each iteration: every graph's activations outlive it.
import torch
from torch import nn

model = nn.Sequential(nn.Linear(16, 64), nn.Tanh(), nn.Linear(64, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(5):
    x = torch.randn(32, 16)
    loss = model(x).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
