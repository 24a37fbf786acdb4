# AF105 negative: the loss tracker held by another object takes each entry's value (`.item()`), so nothing keeps a graph.
import torch
import torch.nn as nn

from af105_tracking.trackers import ValueTracker


def loss_terms(prediction, target):
    return {"mse": (prediction - target).pow(2).mean(), "l1": (prediction - target).abs().mean()}


torch.manual_seed(0)
net = nn.Linear(4, 1)
optimizer = torch.optim.SGD(net.parameters(), lr=0.05)
tracker = ValueTracker()
for step in range(3):
    features, target = torch.randn(6, 4), torch.randn(6, 1)
    losses = loss_terms(net(features), target)
    optimizer.zero_grad()
    losses["mse"].backward()
    optimizer.step()
    tracker.epoch.add(losses)
print({key: float(total) for key, total in tracker.epoch.totals.items()})
