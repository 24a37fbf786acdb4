# OK: two micro-batches, each with its own forward pass and backward before one step (gradient accumulation, unrolled).
import torch
import torch.nn as nn


def get_batch(n):
    return torch.randn(n, 6), torch.randint(0, 3, (n,))


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 10), nn.ReLU(), nn.Linear(10, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.CrossEntropyLoss()

for step in range(3):
    optimizer.zero_grad()
    x1, y1 = get_batch(4)
    x2, y2 = get_batch(4)
    loss_a = loss_fn(model(x1), y1) / 2
    loss_a.backward()
    loss_b = loss_fn(model(x2), y2) / 2
    loss_b.backward()
    optimizer.step()
    print(step, loss_a.item() + loss_b.item())
