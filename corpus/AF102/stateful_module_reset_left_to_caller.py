# AF102: a model from another file keeps an evolving weight across calls and leaves resetting it to its caller; this loop never resets it, so the second epoch's backward() reaches the first epoch's freed graph.
import torch

from af102_stateful.evolving import Forecaster

torch.manual_seed(0)
model = Forecaster(6).to("cpu")
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
snapshots = [(torch.randn(10, 6), torch.randn(10, 1)) for _ in range(4)]
for epoch in range(3):
    cost = 0
    for x, y in snapshots:
        cost = cost + torch.mean((model(x) - y) ** 2)
    cost = cost / len(snapshots)
    cost.backward()
    optimizer.step()
    optimizer.zero_grad()
    print(f"epoch {epoch} cost {cost.item():.4f}")
