# AF101: a trainer class calls accelerator.backward() for a reconstruction loss and again for a penalty on the same output, inside accelerator.accumulate(); the second backward goes through the graph the first one freed.
import contextlib

import torch
import torch.nn as nn

try:
    from accelerate import Accelerator
except ImportError:  # runs without accelerate: one process, gradients synced on every batch
    class Accelerator:
        def prepare(self, *objects):
            return objects

        backward = staticmethod(torch.Tensor.backward)

        def accumulate(self, model):
            return contextlib.nullcontext()


class AutoencoderTrainer:
    def __init__(self, model, optimizer):
        self.accelerator = Accelerator()
        self.model, self.optimizer = self.accelerator.prepare(model, optimizer)

    def train_step(self, batch):
        recon = self.model(batch)
        recon_loss = nn.functional.mse_loss(recon, batch)
        self.accelerator.backward(recon_loss)
        penalty = 1e-3 * recon.pow(2).mean()
        self.accelerator.backward(penalty)
        self.optimizer.step()
        self.optimizer.zero_grad()
        return recon_loss.item()

    def fit(self, loader, epochs=2):
        for _ in range(epochs):
            for batch in loader:
                with self.accelerator.accumulate(self.model):
                    self.train_step(batch)


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 3), nn.Tanh(), nn.Linear(3, 6))
    trainer = AutoencoderTrainer(net, torch.optim.Adam(net.parameters(), lr=1e-3))
    trainer.fit([torch.randn(4, 6) for _ in range(3)])
    print("done")
