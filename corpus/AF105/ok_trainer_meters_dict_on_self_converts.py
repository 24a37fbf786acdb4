# OK: the trainer's meters on itself turn each tensor into a Python number in update(), so train_step may hand them the loss.
import torch
import torch.nn as nn

from af105_helpers.meters import ScalarMeter

torch.manual_seed(0)


class Fitter:
    def __init__(self, network, lr=0.01):
        self.network = network
        self.optimizer = torch.optim.SGD(self.network.parameters(), lr=lr)
        self.meters = {"loss": ScalarMeter(), "error": ScalarMeter()}

    def train_step(self, inputs, targets):
        outputs = self.network(inputs)
        loss = nn.functional.mse_loss(outputs, targets)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.meters["loss"].update(loss, inputs.size(0))
        self.meters["error"].update((outputs - targets).abs().max())

    def fit(self, batches):
        for inputs, targets in batches:
            self.train_step(inputs, targets)
        return self.meters["loss"].avg


fitter = Fitter(nn.Linear(4, 2))
print(fitter.fit([(torch.randn(8, 4), torch.randn(8, 2)) for _ in range(6)]))
