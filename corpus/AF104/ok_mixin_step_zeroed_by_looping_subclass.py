# ok: the mixin's update back-propagates and steps without zeroing, but the subclass in af104_helpers/clearing_runner.py clears the gradients before each call in its loop.
import torch


class PlainUpdateMixin:
    def apply_update(self, loss):
        loss.backward()
        self.optim.step()


if __name__ == "__main__":
    from af104_helpers.clearing_runner import ClearingRunner

    ClearingRunner().run_epochs(2)
