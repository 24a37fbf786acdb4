# AF106: the flag sits on its own line of a wrapped call, with other arguments kept.
import torch
from torch import nn

torch.manual_seed(9)
layer = nn.Linear(4, 4)
optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
for step in range(3):
    out = layer(torch.randn(6, 4))
    loss = out.pow(2).sum()
    optimizer.zero_grad()
    torch.autograd.backward(
        loss,
    )
    optimizer.step()
