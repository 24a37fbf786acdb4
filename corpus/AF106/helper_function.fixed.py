# AF106: a helper that runs one optimisation step retains the graph it never re-uses.
import torch
import torch.nn.functional as F
from torch import nn


def train_one_batch(model, optimizer, x, y):
    optimizer.zero_grad()
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    loss.backward()
    optimizer.step()
    return loss.item()


torch.manual_seed(2)
net = nn.Sequential(nn.Linear(6, 16), nn.GELU(), nn.Linear(16, 4))
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
for step in range(5):
    inputs = torch.randn(20, 6)
    labels = torch.randint(0, 4, (20,))
    value = train_one_batch(net, opt, inputs, labels)
    print(step, round(value, 4))
