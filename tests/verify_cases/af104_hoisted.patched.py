# verify: codes=AF104 verdict=identical
# Correct already: zero_grad() after step(). Moving it before backward() changes nothing.
import torch
from torch import nn

model = nn.Linear(5, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(4):
    optimizer.zero_grad()
    loss = model(torch.randn(8, 5)).pow(2).mean()
    loss.backward()
    optimizer.step()
