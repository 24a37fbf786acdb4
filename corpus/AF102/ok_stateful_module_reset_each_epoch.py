# AF102 negative: the model keeps an evolving weight across calls, and the loop resets it through the owning layer's method before each epoch.
import torch

from af102_stateful.evolving import Forecaster

torch.manual_seed(0)
model = Forecaster(6)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
snapshots = [(torch.randn(10, 6), torch.randn(10, 1)) for _ in range(4)]
for epoch in range(3):
    model.evolving.reset_weight()
    cost = 0
    for x, y in snapshots:
        cost = cost + torch.mean((model(x) - y) ** 2)
    cost = cost / len(snapshots)
    cost.backward()
    optimizer.step()
    optimizer.zero_grad()
    print(f"epoch {epoch} cost {cost.item():.4f}")
