# verify: original=af103_inplace codes=AF103 verdict=diverged  (injected: the out-of-place form computes something else)
# sigmoid's backward needs its output, which mul_ overwrites.
import torch
from torch import nn

layer = nn.Linear(4, 4)
optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
for step in range(3):
    h = torch.sigmoid(layer(torch.randn(8, 4)))
    h = h.add(2)
    loss = h.sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
