# AF103: a shared head's output is split per task and each part is weighted in place inside the loop; autograd refuses in-place writes to views from split.
# autofix-test: unsafe-fixes
import torch
import torch.nn as nn


class MultiTask(nn.Module):
    def __init__(self, d=6, per_task=2, tasks=3):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(d, 16), nn.ReLU(), nn.Linear(16, per_task * tasks))
        self.per_task = per_task
        self.weights = [1.0, 0.5, 0.25]

    def forward(self, x):
        out = self.trunk(x)
        total = 0
        for task, part in enumerate(out.split(self.per_task, dim=1)):
            part = part.mul(self.weights[task])
            total = total + part.pow(2).mean()
        return total


torch.manual_seed(0)
model = MultiTask()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for _ in range(3):
    loss = model(torch.randn(5, 6))
    opt.zero_grad()
    loss.backward()
    opt.step()
