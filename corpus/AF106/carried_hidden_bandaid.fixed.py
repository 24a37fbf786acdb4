# AF106: retain_graph=True keeps an RNN's carried hidden state "working"; each backward walks all earlier chunks.
# autofix-test: unsafe-fixes
import torch
from torch import nn

torch.manual_seed(10)
cell = nn.GRUCell(3, 8)
readout = nn.Linear(8, 1)
optimizer = torch.optim.Adam([*cell.parameters(), *readout.parameters()], lr=1e-2)
series = torch.randn(6, 4, 3)
hidden = torch.zeros(4, 8)
for chunk in series:
    hidden = hidden.detach()
    hidden = cell(chunk, hidden)
    loss = readout(hidden).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
