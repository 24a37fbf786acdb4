# AF104: a `while` loop inside a fit() function steps an Adam optimizer that is never zeroed.
# autofix-test: unsafe-fixes
import torch
import torch.nn as nn
from torch.optim import Adam


def fit(model: nn.Module, max_updates: int = 3):
    adam = Adam(model.parameters(), lr=1e-3)
    updates = 0
    while updates < max_updates:
        signal = torch.randn(8, 2)
        recon = model(signal)
        loss = (recon - signal).pow(2).mean()
        adam.zero_grad()
        loss.backward()
        adam.step()
        updates += 1
        print(updates, loss.item())
    return model


torch.manual_seed(0)
fit(nn.Sequential(nn.Linear(2, 1), nn.Linear(1, 2)))
