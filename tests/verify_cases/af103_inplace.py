# A verification input; the .patched.py files that name it say what the verifier must find.
# sigmoid's backward needs its output, which mul_ overwrites.
import torch
from torch import nn

layer = nn.Linear(4, 4)
optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
for step in range(3):
    h = torch.sigmoid(layer(torch.randn(8, 4)))
    h.mul_(2)
    loss = h.sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
