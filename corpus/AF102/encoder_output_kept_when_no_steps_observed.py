# AF102: the encoder's while loop runs once per observed step, and the last batch has none; `out` is then the previous batch's output, whose graph that batch's backward() freed, and the loss goes through it again.
import torch
import torch.nn as nn

torch.manual_seed(0)
cell = nn.RNNCell(2, 4)
head = nn.Linear(4, 1)
optimizer = torch.optim.Adam([*cell.parameters(), *head.parameters()], lr=1e-3)
batches = [(torch.randn(8, 6, 2), 6), (torch.randn(8, 6, 2), 3), (torch.randn(8, 6, 2), 0)]

for sequence, observed in batches:
    optimizer.zero_grad()
    h = torch.zeros(8, 4)
    t = 0
    while t < observed:
        out = h = cell(sequence[:, t, :], h)
        t += 1
    loss = head(out).pow(2).mean()
    loss.backward()
    optimizer.step()
    print(observed, round(loss.item(), 4))
