# AF102: a recurrent carry object is updated attribute by attribute inside each chunk, and the "detach" between chunks is a stub that hands the same object back, so the next chunk's backward() reaches the graph the previous one freed. The object is no tensor, so no fix is offered.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Carry:
    def __init__(self, hidden):
        self.hidden = hidden
        self.steps = 0

    def detach(self):
        self.steps = 0
        return self


cell = nn.GRUCell(3, 5)
readout = nn.Linear(5, 1)
optimizer = torch.optim.Adam(list(cell.parameters()) + list(readout.parameters()), lr=1e-2)
carry = Carry(torch.zeros(2, 5))
stream = torch.randn(12, 2, 3)
for chunk in stream.split(4):
    carry = carry.detach()
    for frame in chunk:
        carry.hidden = cell(frame, carry.hidden)
        carry.steps += 1
    loss = readout(carry.hidden).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
