# OK: full BPTT — the GRUCell is unrolled over the whole sequence and backward runs once after the unroll.
import torch
import torch.nn as nn

torch.manual_seed(0)
cell = nn.GRUCell(3, 6)
readout = nn.Linear(6, 1)
optimizer = torch.optim.Adam(list(cell.parameters()) + list(readout.parameters()), lr=1e-2)

sequences = torch.randn(4, 10, 2, 3)
targets = torch.randn(4, 10, 2, 1)
for seq, tgt in zip(sequences, targets):
    h = torch.zeros(2, 6)
    loss = torch.zeros(())
    for t in range(seq.size(0)):
        h = cell(seq[t], h)
        loss = loss + (readout(h) - tgt[t]).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
