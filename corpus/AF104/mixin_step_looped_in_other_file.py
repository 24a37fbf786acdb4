# AF104: a mixin's update method back-propagates and steps self.optim but never zeroes it; the subclass that loops over the batches lives in another file (af104_helpers/epoch_runner.py) and zeroes nothing either, so every step applies the sum of all gradients so far.
# autofix-test: unsafe-fixes
import torch


class SgdUpdateMixin:
    """Back-propagates a loss and applies one update of ``self.optim``."""

    def apply_update(self, loss):
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.net.parameters(), max_norm=5.0)
        self.optim.step()


if __name__ == "__main__":
    from af104_helpers.epoch_runner import EpochRunner

    EpochRunner().run_epochs(2)
