# AF102: a LightningModule keeps its recurrent state on self between training_step calls; Lightning back-propagates each returned loss, so the next batch's backward() reaches the graph the previous one freed. The state is None before the first step and a GRUCell output (a tensor) after, so the fix detaches it where it is not None.
import torch
import torch.nn as nn

try:
    from lightning.pytorch import LightningModule
except ImportError:  # runs without Lightning: its automatic loop back-propagates the returned loss
    class LightningModule(nn.Module):
        def log(self, name, value):
            pass


class StreamRegressor(LightningModule):
    def __init__(self):
        super().__init__()
        self.cell = nn.GRUCell(3, 8)
        self.head = nn.Linear(8, 1)
        self.state = None

    def training_step(self, batch, batch_idx):
        x, y = batch
        if self.state is not None:
            self.state = self.state.detach()
        if self.state is None:
            self.state = torch.zeros(x.shape[0], 8)
        self.state = self.cell(x, self.state)
        loss = nn.functional.mse_loss(self.head(self.state), y)
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.05)


if __name__ == "__main__":
    torch.manual_seed(0)
    module = StreamRegressor()
    optimizer = module.configure_optimizers()
    for batch_idx in range(3):
        optimizer.zero_grad()
        loss = module.training_step((torch.randn(4, 3), torch.randn(4, 1)), batch_idx)
        loss.backward()
        optimizer.step()
