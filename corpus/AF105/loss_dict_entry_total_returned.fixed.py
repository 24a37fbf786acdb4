# AF105: a trainer method returns its losses as a dict, back-propagates the "total" entry and adds that same entry into the epoch's running loss, which it returns: every batch's graph stays alive until the epoch ends.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Fitter:
    def __init__(self, net):
        self.net = net
        self.optimizer = torch.optim.SGD(net.parameters(), lr=0.05)

    def compute_losses(self, x, y):
        pred = self.net(x)
        fit = (pred - y).pow(2).mean()
        sparsity = pred.abs().mean()
        return {"total": fit + 0.1 * sparsity, "sparsity": sparsity}

    def run_epoch(self, batches):
        running = 0.0
        for x, y in batches:
            losses = self.compute_losses(x, y)
            self.optimizer.zero_grad()
            losses["total"].backward()
            self.optimizer.step()
            running += losses["total"].detach()
        return running / len(batches)


fitter = Fitter(nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 1)))
print(float(fitter.run_epoch([(torch.randn(6, 5), torch.randn(6, 1)) for _ in range(4)])))
