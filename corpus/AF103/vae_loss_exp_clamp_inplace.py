# AF103: a Gaussian NLL helper clamps exp(logvar) in place; exp's backward needs its output.
import torch
import torch.nn as nn


def gaussian_nll(mu, logvar, target):
    var = torch.exp(logvar)
    var.clamp_(min=1e-4)
    return (0.5 * ((target - mu) ** 2 / var + logvar)).mean()


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, 32), nn.ReLU(), nn.Linear(32, 2))

    def forward(self, x):
        return self.body(x)


def train(model, steps=4):
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for i in range(steps):
        x = torch.randn(64, 3)
        y = x.sum(dim=1, keepdim=True)
        mu, logvar = model(x).chunk(2, dim=1)
        loss = gaussian_nll(mu, logvar, y)
        opt.zero_grad()
        loss.backward()
        opt.step()


torch.manual_seed(0)
train(Regressor())
