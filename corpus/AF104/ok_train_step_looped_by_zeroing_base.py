# ok: the base class in af104_helpers/zeroing_loop.py zeroes self.opt before it runs each train_step, so the subclass's step needs no zero_grad of its own.
import torch
import torch.nn as nn

from af104_helpers.zeroing_loop import ZeroingLoop


class RegressionTrainer(ZeroingLoop):
    def __init__(self, batches):
        super().__init__(batches)
        self.model = nn.Linear(6, 1)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=1e-2)

    def train_step(self, batch):
        features, targets = batch
        loss = nn.functional.mse_loss(self.model(features), targets)
        loss.backward()
        self.opt.step()
        return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    data = [(torch.randn(8, 6), torch.randn(8, 1)) for _ in range(4)]
    RegressionTrainer(data).fit(epochs=2)
