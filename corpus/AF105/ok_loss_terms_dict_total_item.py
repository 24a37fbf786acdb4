# AF105 negative: the per-name totals returned for logging take each loss term as a number (`.item()`), not its graph.
from collections import defaultdict

import torch
import torch.nn as nn


def run_epoch(model, optimizer, loader):
    model.train()
    totals = defaultdict(float)
    for features, target in loader:
        optimizer.zero_grad()
        prediction = model(features)
        terms = {"mse": (prediction - target).pow(2).mean(), "l1": (prediction - target).abs().mean()}
        loss = terms["mse"] + 0.5 * terms["l1"]
        loss.backward()
        optimizer.step()
        for name, value in terms.items():
            totals[name] += value.item()
    return totals


torch.manual_seed(0)
net = nn.Linear(4, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.05)
data = [(torch.randn(6, 4), torch.randn(6, 1)) for _ in range(3)]
for epoch in range(2):
    logged = run_epoch(net, opt, data)
    print({name: round(float(total), 4) for name, total in logged.items()})
