"""A trainer whose loop runs the update of a mixin defined in another file."""
import torch
import torch.nn as nn

from mixin_step_looped_in_other_file import SgdUpdateMixin


class EpochRunner(SgdUpdateMixin):
    def __init__(self):
        torch.manual_seed(0)
        self.net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
        self.optim = torch.optim.SGD(self.net.parameters(), lr=0.05)
        self.batches = [(torch.randn(16, 4), torch.randn(16, 1)) for _ in range(5)]

    def run_epochs(self, epochs):
        for _ in range(epochs):
            for inputs, targets in self.batches:
                prediction = self.net(inputs)
                self.apply_update(nn.functional.mse_loss(prediction, targets))
