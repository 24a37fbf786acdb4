# AF105: each step returns its loss terms in a dict; the epoch function adds every term, graph and all, into a per-name total that it returns for logging, so every step's freed graph is kept alive until the epoch ends.
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
            totals[name] += value
    return totals


torch.manual_seed(0)
net = nn.Linear(4, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.05)
data = [(torch.randn(6, 4), torch.randn(6, 1)) for _ in range(3)]
for epoch in range(2):
    logged = run_epoch(net, opt, data)
    print({name: round(float(total), 4) for name, total in logged.items()})
