# AF104: Lightning manual optimisation accumulating over two batches, but opt.zero_grad() runs at the top of every training_step.
import torch
import torch.nn as nn

try:
    from lightning.pytorch import LightningModule
except ImportError:  # runs without Lightning: the few pieces of its loop this module uses
    class LightningModule(nn.Module):
        def optimizers(self):
            return self._optimizer

        def manual_backward(self, loss):
            loss.backward()


class Regressor(LightningModule):
    def __init__(self):
        super().__init__()
        self.automatic_optimization = False
        self.layer = nn.Linear(3, 1)

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        opt.zero_grad()
        x, y = batch
        loss = nn.functional.mse_loss(self.layer(x), y) / 2
        self.manual_backward(loss)
        if (batch_idx + 1) % 2 == 0:
            opt.step()
        return loss.detach()

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


if __name__ == "__main__":
    torch.manual_seed(0)
    module = Regressor()
    module._optimizer = module.configure_optimizers()
    # Run by hand, without a Trainer: Lightning's own optimizers() and
    # manual_backward() need one, so the two pieces of its loop used here stand in.
    module.optimizers = lambda: module._optimizer
    module.manual_backward = lambda loss: loss.backward()
    for batch_idx in range(4):
        print(batch_idx, module.training_step((torch.randn(4, 3), torch.randn(4, 1)), batch_idx).item())
