# ok: a layer takes its activation as a constructor argument (GELU's functional form by default), and GELU saves its input, not its output: scaling the output in place is fine.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ScaledFeedForward(nn.Module):
    def __init__(self, width: int, activation=F.gelu):
        super().__init__()
        self.proj = nn.Linear(width, width)
        self.activation = activation
        self.out = nn.Linear(width, 1)

    def forward(self, x):
        hidden = self.activation(self.proj(x))
        hidden.mul_(0.5)
        return self.out(hidden)


torch.manual_seed(0)
layer = ScaledFeedForward(5)
opt = torch.optim.SGD(layer.parameters(), lr=0.1)
for _ in range(2):
    loss = layer(torch.randn(4, 5)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
