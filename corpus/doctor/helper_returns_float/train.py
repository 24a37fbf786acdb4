# doctor: AF105 at train.py: `mean_abs_error` returns a tensor with its graph, so `running_error` keeps every batch's graph alive.
import torch
import torch.nn as nn

from metrics import mean_abs_error

torch.manual_seed(0)
features = torch.randn(64, 5)
targets = features @ torch.randn(5, 1)
model = nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
running_error = 0.0
for batch in range(8):
    rows = slice(batch * 8, batch * 8 + 8)
    prediction = model(features[rows])
    loss = nn.functional.mse_loss(prediction, targets[rows])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    running_error += mean_abs_error(prediction, targets[rows])
print("mean abs error", float(running_error) / 8)
