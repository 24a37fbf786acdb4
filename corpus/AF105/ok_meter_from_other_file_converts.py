# OK: the meter imported from a helper module turns each tensor into a Python number itself, so no graph is kept.
import torch
import torch.nn as nn

from af105_helpers.meters import ScalarMeter

torch.manual_seed(0)
regressor = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 1))
optimizer = torch.optim.SGD(regressor.parameters(), lr=0.05)
loss_meter = ScalarMeter()
for step in range(4):
    x, y = torch.randn(16, 5), torch.randn(16, 1)
    loss = nn.functional.mse_loss(regressor(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    loss_meter.update(loss, x.size(0))
print(f"mean loss {loss_meter.avg:.4f}")
