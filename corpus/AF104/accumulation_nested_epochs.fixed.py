# AF104: nested epoch/batch loops with accumulation over `cfg.accum`; model.zero_grad() runs before every micro-batch.
import torch
import torch.nn as nn
from dataclasses import dataclass


@dataclass
class Cfg:
    epochs: int = 2
    batches: int = 4
    accum: int = 2


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, 9), nn.ReLU(), nn.Linear(9, 1))

    def forward(self, x):
        return self.body(x)


cfg = Cfg()
torch.manual_seed(0)
network = Net()
optimizer = torch.optim.SGD(network.parameters(), lr=0.02)
for epoch in range(cfg.epochs):
    network.zero_grad()
    for batch_idx in range(cfg.batches):
        x = torch.randn(5, 3)
        loss = network(x).pow(2).mean() / cfg.accum
        loss.backward()
        if (batch_idx + 1) % cfg.accum == 0:
            optimizer.step()
            network.zero_grad()
    print(epoch, loss.item())
