# AF105: the step back-propagates its loss and returns it scaled by a command-line setting; the
# scaled value is still the loss tensor with its graph, so the caller's running total keeps every
# step's graph alive.
import argparse

import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--scale", type=float, default=0.5)
settings = parser.parse_args([])

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(net.parameters(), lr=0.05)


def fit_batch(inputs, targets):
    optimizer.zero_grad()
    loss = nn.functional.l1_loss(net(inputs), targets)
    loss.backward()
    optimizer.step()
    return loss * settings.scale


running = 0.0
for _ in range(4):
    running += fit_batch(torch.randn(8, 4), torch.randn(8, 1))
print(f"scaled loss total {float(running):.4f}")
