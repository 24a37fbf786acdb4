# AF101: a LightningModule under automatic optimisation calls loss.backward() itself and also returns the loss, which Lightning back-propagates a second time.
# autofix-test: unsafe-fixes
import torch
import torch.nn as nn

try:
    from lightning.pytorch import LightningModule
except ImportError:  # runs without Lightning: its automatic loop zeroes, then back-propagates the returned loss
    class LightningModule(nn.Module):
        pass


class Classifier(LightningModule):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(4, 3)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.cross_entropy(self.layer(x), y)
        loss.backward()
        return loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


if __name__ == "__main__":
    torch.manual_seed(0)
    module = Classifier()
    optimizer = module.configure_optimizers()
    for batch_idx in range(3):
        loss = module.training_step((torch.randn(5, 4), torch.randint(0, 3, (5,))), batch_idx)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(batch_idx, loss.item())
