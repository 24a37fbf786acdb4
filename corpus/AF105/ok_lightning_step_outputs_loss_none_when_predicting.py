# AF105 negative (twin of lightning_step_outputs_loss_none_when_predicting): the loss may be
# None when predicting, and what is kept for the epoch end is the loss detached where it is
# a tensor (`x.detach() if x is not None else None`): graphs kept at the epoch end: 0.
import torch
import torch.nn as nn

try:
    from lightning.pytorch import LightningModule
except ImportError:
    class LightningModule(nn.Module):
        pass


class Forecaster(LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
        self.training_step_outputs = []
        self.predicting = False

    def forward(self, x):
        return {"prediction": self.net(x)}

    def step(self, x, y):
        out = {"prediction": self.net(x)}
        if not self.predicting:
            loss = nn.functional.mse_loss(out["prediction"], y)
        else:
            loss = None
        log = {"loss": loss, "n_samples": x.size(0)}
        return log, out

    def training_step(self, batch, batch_idx):
        x, y = batch
        log, out = self.step(x, y)
        kept = log["loss"].detach() if log["loss"] is not None else None
        self.training_step_outputs.append({"loss": kept, "n_samples": x.size(0)})
        return log

    def on_train_epoch_end(self):
        self.training_step_outputs.clear()

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.01)


def fit(model, batches):
    optimizer = model.configure_optimizers()
    for i, batch in enumerate(batches):
        result = model.training_step(batch, i)
        optimizer.zero_grad()
        result["loss"].backward()
        optimizer.step()
    kept = sum(o["loss"].grad_fn is not None for o in model.training_step_outputs)
    print(f"graphs kept at the end of the epoch: {kept}")
    model.on_train_epoch_end()


if __name__ == "__main__":
    torch.manual_seed(0)
    fit(Forecaster(), [(torch.randn(16, 8), torch.randn(16, 1)) for _ in range(10)])
