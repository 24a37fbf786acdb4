# AF106: the loop detaches the model's evolving weight after each step, so nothing reaches an earlier epoch's graph and retain_graph=True only holds memory; the flag can go.
# autofix-test: select=AF102,AF106
import torch

from af102_stateful.evolving import Forecaster

torch.manual_seed(0)
model = Forecaster(6)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
snapshots = [(torch.randn(10, 6), torch.randn(10, 1)) for _ in range(4)]
for epoch in range(3):
    cost = 0
    for x, y in snapshots:
        cost = cost + torch.mean((model(x) - y) ** 2)
    cost = cost / len(snapshots)
    cost.backward(retain_graph=True)
    optimizer.step()
    optimizer.zero_grad()
    model.evolving.current = model.evolving.current.detach()
    print(f"epoch {epoch} cost {cost.item():.4f}")
