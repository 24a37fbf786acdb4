# verify: original=af102_rnn codes=AF102 verdict=diverged  (injected: detaches where the state is used, not where it is carried)
# The hidden state carries the previous iteration's graph; backward reaches into freed buffers.
import torch
from torch import nn

cell = nn.RNNCell(3, 5)
readout = nn.Linear(5, 1)
optimizer = torch.optim.Adam([*cell.parameters(), *readout.parameters()], lr=0.01)
h = torch.zeros(2, 5)
for step in range(5):
    x = torch.randn(2, 3)
    h = cell(x, h)
    loss = readout(h.detach()).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
