# AF102: `while` loop over a sensor stream; GRUCell state carried between online updates.
import torch
from torch import nn

torch.manual_seed(0)
cell = nn.GRUCell(input_size=3, hidden_size=7)
head = nn.Linear(7, 1)
optimizer = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.1)

readings = torch.randn(12, 2, 3)
state = torch.zeros(2, 7)
cursor = 0
while cursor < len(readings) - 1:
    state = state.detach()
    state = cell(readings[cursor], state)
    loss = (head(state) - readings[cursor + 1, :, :1]).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    cursor += 1
