# AF102: one recurrent state per sensor stream, kept in a list slot (`states[k]`) between batches;
# the second batch's backward() walks into the first batch's freed graph through those slots.
import torch
import torch.nn as nn

torch.manual_seed(0)

cell = nn.RNNCell(3, 7)
readout = nn.Linear(7, 1)
optimizer = torch.optim.SGD(list(cell.parameters()) + list(readout.parameters()), lr=0.05)
states = [torch.zeros(5, 7) for _ in range(2)]
for batch in range(3):
    loss = 0
    for k in range(2):
        reading = torch.randn(5, 3)
        states[k] = cell(reading, states[k])
        loss = loss + readout(states[k]).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(loss.item())
