# AF105 (no fix): the step returns its back-propagated loss scaled by a setting, or the float 0.0
# when a batch is empty; the running total keeps the graphs of the steps that trained, but `.detach()`
# would raise on the float, so only a report is made.
import argparse

import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--weight", type=float, default=2.0)
settings = parser.parse_args([])

torch.manual_seed(0)
net = nn.Linear(3, 1)
optimizer = torch.optim.SGD(net.parameters(), lr=0.05)


def fit_batch(inputs, targets):
    if inputs.shape[0] == 0:
        loss = 0.0
    else:
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(net(inputs), targets)
        loss.backward()
        optimizer.step()
    return loss * settings.weight


total = 0.0
for size in (4, 0, 6):
    total += fit_batch(torch.randn(size, 3), torch.randn(size, 1))
print(f"weighted total {float(total):.4f}")
