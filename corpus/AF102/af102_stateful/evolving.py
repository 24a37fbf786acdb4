"""Helper module for the AF102 cases: a layer whose weight evolves from one call to the next."""
import torch
import torch.nn as nn


class EvolvingLinear(nn.Module):
    """Each call rebuilds the weight from the previous call's weight; the owner resets it."""

    def __init__(self, width):
        super().__init__()
        self.seed = nn.Parameter(torch.randn(width, width) * 0.1)
        self.cell = nn.GRUCell(width, width)
        self.current = None

    def reset_weight(self):
        self.current = None

    def forward(self, x):
        if self.current is None:
            self.current = self.cell(self.seed, self.seed)
        else:
            self.current = self.cell(self.current, self.current)
        return x @ self.current


class Forecaster(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.evolving = EvolvingLinear(width)
        self.head = nn.Linear(width, 1)

    def forward(self, x):
        return self.head(torch.relu(self.evolving(x)))
