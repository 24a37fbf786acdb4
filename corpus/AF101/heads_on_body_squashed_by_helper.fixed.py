# Two heads read features that an imported helper squashes with a torch function picked by a flag; the helper keeps the body's graph, so the second backward() finds it freed.
import torch
import torch.nn as nn
from af101_helpers.tensor_inputs import squash

torch.manual_seed(0)
body = nn.Linear(4, 8)
head_a = nn.Linear(8, 1)
head_b = nn.Linear(8, 1)
params = [*body.parameters(), *head_a.parameters(), *head_b.parameters()]
optimizer = torch.optim.SGD(params, lr=0.1)

for step in range(3):
    x, y = torch.randn(5, 4), torch.randn(5, 1)
    features = squash(body(x))
    loss_a = (head_a(features) - y).pow(2).mean()
    loss_b = (head_b(features) + y).pow(2).mean()
    optimizer.zero_grad()
    (loss_a + loss_b).backward()
    optimizer.step()
    print(step, loss_a.item(), loss_b.item())
