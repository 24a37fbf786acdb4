# AF103: the skip projection (a Linear, which saves its input) reads `h`, then `h` is clamped in place.
import torch
import torch.nn as nn


class TwoPath(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.inp = nn.Linear(dim, dim)
        self.skip = nn.Linear(dim, dim)
        self.main = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.inp(x)
        shortcut = self.skip(h)
        h.clamp_(min=0.0)
        return self.main(h) + shortcut


torch.manual_seed(1)
model = TwoPath(6)
optimizer = torch.optim.Adagrad(model.parameters(), lr=0.1)
data = [(torch.randn(5, 6), torch.randn(5, 6)) for _ in range(3)]
for x, y in data:
    optimizer.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    optimizer.step()
