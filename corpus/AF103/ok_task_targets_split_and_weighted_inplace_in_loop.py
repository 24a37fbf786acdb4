# ok: the in-place weighting hits parts of the target tensor (plain data), and the network output is split without writes.
import torch
import torch.nn as nn


class MultiTask(nn.Module):
    def __init__(self, d=6, per_task=2, tasks=3):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(d, 16), nn.ReLU(), nn.Linear(16, per_task * tasks))
        self.per_task = per_task

    def forward(self, x, targets):
        out = self.trunk(x)
        total = 0
        for task, (part, goal) in enumerate(zip(out.split(self.per_task, 1), targets.split(self.per_task, 1))):
            total = total + (part - goal).pow(2).mean() / (task + 1)
        return total


torch.manual_seed(0)
model = MultiTask()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for _ in range(3):
    targets = torch.randn(5, 6)
    for task, block in enumerate(targets.split(2, dim=1)):
        block.mul_(1.0 / (task + 1))
    loss = model(torch.randn(5, 6), targets)
    opt.zero_grad()
    loss.backward()
    opt.step()
