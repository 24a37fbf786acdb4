"""LightningModule bases imported by corpus cases: one under automatic optimisation, one that turns it off."""
import torch
import torch.nn as nn

try:
    from lightning.pytorch import LightningModule
except ImportError:  # runs without Lightning: its automatic loop zeroes, then back-propagates the returned loss
    class LightningModule(nn.Module):
        pass


class AutoBase(LightningModule):
    """Leaves Lightning's automatic optimisation on: the loop back-propagates what training_step returns."""

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


class ManualBase(LightningModule):
    """Turns automatic optimisation off: subclasses back-propagate and step themselves."""

    def __init__(self):
        super().__init__()
        self.automatic_optimization = False

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)
