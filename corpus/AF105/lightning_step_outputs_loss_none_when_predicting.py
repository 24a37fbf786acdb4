# AF105 positive: a LightningModule's `training_step` keeps each step's log dict in
# `self.training_step_outputs` until the epoch ends. The loss in the log is a tensor with
# its graph when training and `None` when the module only predicts (`loss = None` on the
# `else` branch): either may be what `log` holds, so it may hold a graph, and in training
# it does, for every step of the epoch. No fix: `log` is a dict, and its loss may be None.
# (A stand-in loop does what Lightning's automatic optimization does, so no Lightning is needed.)
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
        self.training_step_outputs.append(log)
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
