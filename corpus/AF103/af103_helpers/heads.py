"""Head base classes imported by corpus cases: the squashing function is configurable."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class SigmoidHeadBase(nn.Module):
    """A one-output head whose squashing function defaults to sigmoid (which saves its output)."""

    def __init__(self, width, f_squash=torch.sigmoid):
        super().__init__()
        self.linear = nn.Linear(width, 1)
        self.f_squash = f_squash


class SoftplusHeadBase(nn.Module):
    """A one-output head whose squashing function defaults to softplus (its backward reads only the input)."""

    def __init__(self, width, f_squash=F.softplus):
        super().__init__()
        self.linear = nn.Linear(width, 1)
        self.f_squash = f_squash
