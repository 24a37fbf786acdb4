# A verification input; the .patched.py files that name it say what the verifier must find.
# zero_grad() between backward() and step(): the optimizer never sees a gradient.
import torch
from torch import nn

model = nn.Sequential(nn.Linear(3, 6), nn.ReLU(), nn.Linear(6, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for step in range(5):
    loss = (model(torch.randn(10, 3)) - 1).pow(2).mean()
    loss.backward()
    optimizer.zero_grad()
    optimizer.step()
