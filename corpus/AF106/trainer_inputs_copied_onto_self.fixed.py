# AF106: the batch is copied onto `self` (data, no graph) and each step builds and walks its own
# graph once; retain_graph=True only keeps every activation alive until the next step.
import torch
import torch.nn as nn


class Regressor:
    def __init__(self):
        self.net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=0.05)

    def set_input(self, batch):
        self.inputs = batch["x"]
        self.targets = batch["y"]

    def optimize(self):
        prediction = self.net(self.inputs)
        loss = (prediction - self.targets).pow(2).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


torch.manual_seed(5)
model = Regressor()
for _ in range(3):
    model.set_input({"x": torch.randn(8, 6), "y": torch.randn(8, 1)})
    print(model.optimize())
