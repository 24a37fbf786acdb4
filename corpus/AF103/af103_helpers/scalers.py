"""Scaling blocks imported by corpus cases."""
import torch.nn as nn


class NormThenScale(nn.Module):
    """Normalises its input first, then doubles the normalised tensor in place: the write lands on
    the normalisation's output, never on the tensor the caller handed in."""

    def __init__(self, channels):
        super().__init__()
        self.norm = nn.BatchNorm2d(channels)
        self.conv = nn.Conv2d(channels, 2 * channels, 3, padding=1)

    def forward(self, x):
        x = self.norm(x)
        x *= 2.0
        return self.conv(x)


class ScaleInPlace(nn.Module):
    """Doubles the tensor it is handed in place before its convolution."""

    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, 2 * channels, 3, padding=1)

    def forward(self, x):
        x *= 2.0
        return self.conv(x)
