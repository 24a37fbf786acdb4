# OK: automatic_optimization is overridden as a property returning False (manual mode), so the backward in training_step is the only one.
import torch
import torch.nn as nn

try:
    from lightning.pytorch import LightningModule
except ImportError:  # runs without Lightning: nothing of its loop is needed in manual mode
    class LightningModule(nn.Module):
        pass


class Policy(LightningModule):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 2)
        self.opt = torch.optim.Adam(self.body.parameters(), lr=1e-3)

    @property
    def automatic_optimization(self):
        return False

    def training_step(self, batch, batch_idx):
        states, targets = batch
        loss = nn.functional.smooth_l1_loss(self.body(states), targets)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss


if __name__ == "__main__":
    torch.manual_seed(0)
    policy = Policy()
    for batch_idx in range(3):
        print(batch_idx, policy.training_step((torch.randn(5, 4), torch.randn(5, 2)), batch_idx).item())
