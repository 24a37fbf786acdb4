# AF103: a forward keeps per-slot visit counts in a fresh tensor and bumps one slot per step with an indexed assignment; the previous step's product with a parameter saved the counts for backward.
import torch
import torch.nn as nn


class VisitWeighting(nn.Module):
    def __init__(self, slots: int):
        super().__init__()
        self.slots = slots
        self.weight = nn.Parameter(torch.linspace(0.5, 1.5, slots))

    def forward(self, x):
        counts = torch.zeros(self.slots)
        total = x
        for step in range(self.slots):
            counts[step] = counts[step] + 1
            total = total + counts * self.weight
        return total.sum()


torch.manual_seed(0)
module = VisitWeighting(4)
opt = torch.optim.SGD(module.parameters(), lr=0.01)
for _ in range(2):
    loss = module(torch.randn(4))
    opt.zero_grad()
    loss.backward()
    opt.step()
