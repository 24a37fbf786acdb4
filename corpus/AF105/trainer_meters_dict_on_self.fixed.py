# AF105: a trainer keeps a dict of meters on itself; each train_step (called from fit's loop) puts the loss tensor into one, whose update() keeps the graph in a running sum.
import torch
import torch.nn as nn

from af105_helpers.meters import AverageMeter

torch.manual_seed(0)


class Fitter:
    def __init__(self, network, lr=0.01):
        self.network = network
        self.optimizer = torch.optim.SGD(self.network.parameters(), lr=lr)
        self.meters = {"loss": AverageMeter(), "error": AverageMeter()}

    def train_step(self, inputs, targets):
        outputs = self.network(inputs)
        loss = nn.functional.mse_loss(outputs, targets)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.meters["loss"].update(loss.detach(), inputs.size(0))
        self.meters["error"].update((outputs - targets).abs().max().item())

    def fit(self, batches):
        for inputs, targets in batches:
            self.train_step(inputs, targets)
        return float(self.meters["loss"].avg)


fitter = Fitter(nn.Linear(4, 2))
print(fitter.fit([(torch.randn(8, 4), torch.randn(8, 2)) for _ in range(6)]))
