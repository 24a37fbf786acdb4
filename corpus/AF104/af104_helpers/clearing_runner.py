"""A trainer that clears the gradients itself before running a mixin's update."""
import torch
import torch.nn as nn

from ok_mixin_step_zeroed_by_looping_subclass import PlainUpdateMixin


class ClearingRunner(PlainUpdateMixin):
    def __init__(self):
        torch.manual_seed(0)
        self.net = nn.Linear(4, 1)
        self.optim = torch.optim.SGD(self.net.parameters(), lr=0.05)
        self.batches = [(torch.randn(16, 4), torch.randn(16, 1)) for _ in range(5)]

    def run_epochs(self, epochs):
        for _ in range(epochs):
            for inputs, targets in self.batches:
                self.optim.zero_grad(set_to_none=True)
                self.apply_update(nn.functional.l1_loss(self.net(inputs), targets))
