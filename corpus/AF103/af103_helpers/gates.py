"""Gating blocks imported by corpus cases."""
import torch
import torch.nn as nn


class SigmoidGate(nn.Module):
    """A projection squashed by sigmoid: the block hands back an output autograd saved."""

    def __init__(self, width):
        super().__init__()
        self.proj = nn.Linear(width, width)

    def forward(self, x):
        z = self.proj(x)
        return torch.sigmoid(z)


class LinearGate(nn.Module):
    """A sigmoid followed by a projection: the block hands back a linear output, which nothing saved."""

    def __init__(self, width):
        super().__init__()
        self.proj = nn.Linear(width, width)

    def forward(self, x):
        return self.proj(torch.sigmoid(x))
