# A verification input; the .patched.py files that name it say what the verifier must find.
# retain_graph=True hides the error: every backward walks the whole history (growing graph).
import torch
from torch import nn

cell = nn.GRUCell(3, 4)
readout = nn.Linear(4, 1)
optimizer = torch.optim.SGD([*cell.parameters(), *readout.parameters()], lr=0.05)
h = torch.zeros(2, 4)
for step in range(6):
    h = cell(torch.randn(2, 3), h)
    loss = readout(h).pow(2).mean()
    optimizer.zero_grad()
    loss.backward(retain_graph=True)
    optimizer.step()
