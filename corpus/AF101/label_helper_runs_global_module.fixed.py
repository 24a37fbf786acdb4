# AF101: the "label" helper runs a module it reads from the module's globals, so its result carries a graph of its own; both losses back-propagate through it and the second backward finds it freed.
import torch
import torch.nn as nn

torch.manual_seed(0)
smoother = nn.Linear(1, 1)


def soft_targets(x):
    return torch.sigmoid(smoother(x))


model = nn.Linear(3, 1)
params = list(model.parameters()) + list(smoother.parameters())
optimizer = torch.optim.SGD(params, lr=0.05)

for _ in range(3):
    inputs = torch.randn(4, 3)
    targets = soft_targets(torch.ones(4, 1))
    prediction = torch.sigmoid(model(inputs))
    fit_loss = (prediction - targets).pow(2).mean()
    calibration_loss = targets.mean()
    optimizer.zero_grad()
    (fit_loss + calibration_loss).backward()
    optimizer.step()
