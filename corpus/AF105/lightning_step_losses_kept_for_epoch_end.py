# AF105: a LightningModule appends every batch's loss tensor to a list on itself for the epoch-end average; Lightning back-propagates the returned loss, and the list keeps each freed graph alive until the epoch ends.
import torch
import torch.nn as nn

try:
    from lightning.pytorch import LightningModule
except ImportError:  # runs without Lightning: its automatic loop back-propagates the returned loss
    class LightningModule(nn.Module):
        def log(self, name, value):
            pass


class QualityScorer(LightningModule):
    def __init__(self):
        super().__init__()
        self.scorer = nn.Sequential(nn.Linear(6, 16), nn.GELU(), nn.Linear(16, 1))
        self.batch_losses = []

    def training_step(self, batch, batch_idx):
        features, scores = batch
        loss = nn.functional.l1_loss(self.scorer(features), scores)
        self.batch_losses.append(loss)
        return loss

    def on_train_epoch_end(self):
        self.log("epoch_loss", torch.stack(self.batch_losses).mean())
        self.batch_losses.clear()

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3)


if __name__ == "__main__":
    torch.manual_seed(0)
    module = QualityScorer()
    optimizer = module.configure_optimizers()
    for batch_idx in range(4):
        optimizer.zero_grad()
        loss = module.training_step((torch.randn(8, 6), torch.randn(8, 1)), batch_idx)
        loss.backward()
        optimizer.step()
    module.on_train_epoch_end()
