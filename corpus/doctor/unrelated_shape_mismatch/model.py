"""A classifier head that expects eight features."""
import torch.nn as nn


def build():
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
