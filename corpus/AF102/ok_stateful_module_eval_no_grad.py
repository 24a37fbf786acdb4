# AF102 negative: the stateful model is only called under torch.no_grad() inside the training loop (a validation pass); the trained model carries no state.
import torch
import torch.nn as nn

from af102_stateful.evolving import Forecaster

torch.manual_seed(0)
model = nn.Linear(6, 1)
monitor = Forecaster(6)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(3):
    x, y = torch.randn(10, 6), torch.randn(10, 1)
    loss = torch.mean((model(x) - y) ** 2)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        drift = monitor(x).mean()
    print(f"step {step} loss {loss.item():.4f} drift {drift.item():.4f}")
