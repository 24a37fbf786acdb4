# AF105: each loss is back-propagated inside a method of the model object (self.model.descend(loss, opt)), then kept in self.trace with its graph; every stored loss holds its step's graph.
import torch
import torch.nn as nn


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(5, 1)

    def forward(self, x):
        return self.fc(x)

    def descend(self, loss, opt):
        opt.zero_grad()
        loss.backward()
        opt.step()


class Fitter:
    def __init__(self):
        self.model = Regressor()
        self.opt = torch.optim.Adam(self.model.parameters(), lr=0.01)
        self.trace = []

    def fit(self, steps):
        for _ in range(steps):
            x, y = torch.randn(12, 5), torch.randn(12, 1)
            loss = nn.functional.smooth_l1_loss(self.model(x), y)
            self.model.descend(loss, self.opt)
            self.trace.append(loss.detach())
        return [float(v) for v in self.trace]


torch.manual_seed(0)
print(Fitter().fit(5))
