# verify: codes=AF104 verdict=intended-change
# No zero_grad() at all: every step applies the sum of all gradients so far.
import torch
from torch import nn

model = nn.Linear(5, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(5):
    loss = (model(torch.randn(8, 5)) - 2).pow(2).mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
