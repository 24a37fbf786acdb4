# ok: each step back-propagates its own summed loss and hands back a plain number (`.item()` or a
# `.data` element) divided by a command-line setting; adding those up keeps no graph.
import argparse

import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--window", type=int, default=4)
parser.add_argument("--rounds", type=int, default=3)
settings = parser.parse_args([])

torch.manual_seed(0)
cell = nn.GRUCell(5, 8)
head = nn.Linear(8, 5)
params = list(cell.parameters()) + list(head.parameters())
optimizer = torch.optim.Adam(params, lr=1e-3)


def fit_window(inputs, targets):
    state = torch.zeros(2, 8)
    optimizer.zero_grad()
    total = 0
    for t in range(settings.window):
        state = cell(inputs[t], state)
        total += nn.functional.mse_loss(head(state), targets[t])
    total.backward()
    optimizer.step()
    return total.item() / settings.window


def fit_window_raw(inputs, targets):
    optimizer.zero_grad()
    state = cell(inputs[0], torch.zeros(2, 8))
    loss = nn.functional.mse_loss(head(state), targets[0])
    loss.backward()
    optimizer.step()
    return loss.data.reshape(1)[0] / settings.window


smoothed = 0
raw = 0
for _ in range(settings.rounds):
    xs, ys = torch.randn(settings.window, 2, 5), torch.randn(settings.window, 2, 5)
    smoothed += fit_window(xs, ys)
    raw += fit_window_raw(xs, ys)
print(f"mean window loss {smoothed / settings.rounds:.4f} {float(raw):.4f}")
