# AF105: a dict of meters from a helper module of the project keeps each statistic with its graph; the statistics come from a helper whose arguments may be anything, so they are not known to be tensors: reported without a fix.
import torch
import torch.nn as nn

from af105_helpers.meters import AverageMeter

torch.manual_seed(0)
regressor = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 1))
optimizer = torch.optim.SGD(regressor.parameters(), lr=0.05)
criterion = nn.MSELoss()


def compute_stats(pred, target):
    err = pred - target
    return {"mse": (err ** 2).mean(), "mae": err.abs().mean()}


meters = {"mse": AverageMeter(), "mae": AverageMeter()}
for step in range(4):
    x, y = torch.randn(16, 5), torch.randn(16, 1)
    pred = regressor(x)
    loss = criterion(pred, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    stats = compute_stats(pred, y)
    for name, value in stats.items():
        meters[name].update(value, x.size(0))
print({k: round(float(m.avg), 4) for k, m in meters.items()})
