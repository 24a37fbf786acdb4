# AF103: writes through a view (`flat = h.view(-1)`) of a tanh output reach the tensor tanh's backward needs; reported without a fix.
import torch
import torch.nn as nn


class Squash(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        h = torch.tanh(self.lin(x))
        flat = h.view(-1)
        flat.mul_(0.5)
        return h


torch.manual_seed(0)
m = Squash()
opt = torch.optim.SGD(m.parameters(), lr=0.1)
for _ in range(2):
    loss = m(torch.randn(3, 4)).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
