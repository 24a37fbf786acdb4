# AF105: the step's dict of loss terms goes to a loss tracker held by another object (`tracker.epoch.add(losses)`, both defined in a helper folder), and the tracker sums the entries with their graphs for the whole epoch; the dict itself cannot be detached, so there is no automatic fix.
import torch
import torch.nn as nn

from af105_tracking.trackers import Tracker


def loss_terms(prediction, target):
    return {"mse": (prediction - target).pow(2).mean(), "l1": (prediction - target).abs().mean()}


torch.manual_seed(0)
net = nn.Linear(4, 1)
optimizer = torch.optim.SGD(net.parameters(), lr=0.05)
tracker = Tracker()
for step in range(3):
    features, target = torch.randn(6, 4), torch.randn(6, 1)
    losses = loss_terms(net(features), target)
    optimizer.zero_grad()
    losses["mse"].backward()
    optimizer.step()
    tracker.epoch.add(losses)
print({key: float(total) for key, total in tracker.epoch.totals.items()})
