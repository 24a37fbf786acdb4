# AF101: the LightningModule base lives in another file of the project; training_step still back-propagates the loss it returns, so Lightning's automatic loop runs a second backward on a freed graph.
# autofix-test: unsafe-fixes
import torch
import torch.nn as nn

from af101_helpers.lit_bases import AutoBase


class Regressor(AutoBase):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.mse_loss(self.net(x), y)
        return loss


if __name__ == "__main__":
    torch.manual_seed(0)
    module = Regressor()
    optimizer = module.configure_optimizers()
    for batch_idx in range(3):
        loss = module.training_step((torch.randn(6, 3), torch.randn(6, 1)), batch_idx)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(batch_idx, loss.item())
