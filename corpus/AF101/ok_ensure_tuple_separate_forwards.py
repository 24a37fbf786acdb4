# OK: each loss in the tuple comes from its own forward pass, so back-propagating them one by one frees nothing the next one needs.
import torch
import torch.nn as nn

from af101_helpers.multitask_terms import ensure_tuple

torch.manual_seed(0)
net = nn.Linear(5, 2)
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
for it in range(3):
    optimizer.zero_grad()
    first = net(torch.randn(4, 5)).pow(2).mean()
    second = net(torch.randn(4, 5)).abs().mean()
    for loss in ensure_tuple((first, second)):
        loss.backward()
    optimizer.step()
    print(it, first.item(), second.item())
