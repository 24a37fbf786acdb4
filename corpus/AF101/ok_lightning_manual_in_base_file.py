# OK: automatic optimisation is switched off in a base class in another file, so this training_step owns its backward and step; Lightning does not back-propagate the returned loss again.
import torch
import torch.nn as nn

from af101_helpers.lit_bases import ManualBase


class Regressor(ManualBase):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
        self._optimizer = None

    def training_step(self, batch, batch_idx):
        if self._optimizer is None:
            self._optimizer = self.configure_optimizers()
        x, y = batch
        loss = nn.functional.mse_loss(self.net(x), y)
        self._optimizer.zero_grad()
        loss.backward()
        self._optimizer.step()
        return loss.detach()


if __name__ == "__main__":
    torch.manual_seed(0)
    module = Regressor()
    for batch_idx in range(3):
        print(batch_idx, module.training_step((torch.randn(6, 3), torch.randn(6, 1)), batch_idx).item())
