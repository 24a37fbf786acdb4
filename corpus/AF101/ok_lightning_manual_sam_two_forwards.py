# OK: Lightning manual optimisation with a SAM-style optimizer: two forward passes, each back-propagated once around first_step()/second_step().
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


class TwoStepSGD(torch.optim.SGD):
    @torch.no_grad()
    def first_step(self, rho=0.05):
        self.saved = [p.detach().clone() for group in self.param_groups for p in group["params"]]
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.add_(p.grad, alpha=rho)
        self.zero_grad()

    @torch.no_grad()
    def second_step(self):
        params = [p for group in self.param_groups for p in group["params"]]
        for p, old in zip(params, self.saved):
            p.copy_(old)
        self.step()
        self.zero_grad()


class SharpnessAware(LightningModule):
    def __init__(self):
        super().__init__()
        self.automatic_optimization = False
        self.layer = nn.Linear(3, 2)

    def compute_loss(self, batch):
        x, y = batch
        return nn.functional.mse_loss(self.layer(x), y)

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        loss = self.compute_loss(batch)
        self.manual_backward(loss)
        opt.first_step()
        perturbed_loss = self.compute_loss(batch)
        self.manual_backward(perturbed_loss)
        opt.second_step()
        return loss.detach()


if __name__ == "__main__":
    torch.manual_seed(0)
    module = SharpnessAware()
    module._optimizer = TwoStepSGD(module.parameters(), lr=0.1)
    # Run by hand, without a Trainer: Lightning's own optimizers() and
    # manual_backward() need one, so the two pieces of its loop used here stand in.
    module.optimizers = lambda: module._optimizer
    module.manual_backward = lambda loss: loss.backward()
    for batch_idx in range(3):
        print(batch_idx, module.training_step((torch.randn(4, 3), torch.randn(4, 2)), batch_idx).item())
