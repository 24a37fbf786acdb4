# ok: the visit counts are rebuilt out of place at every step (a new tensor each time), so the tensor an earlier product saved is never written.
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
            counts = counts + nn.functional.one_hot(torch.tensor(step), self.slots)
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
