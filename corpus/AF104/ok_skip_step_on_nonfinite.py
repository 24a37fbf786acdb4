# OK: the step is guarded by a finiteness check (not accumulation): zeroing every iteration is right.
import math
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 6), nn.ReLU(), nn.Linear(6, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for it in range(4):
    optimizer.zero_grad()
    x = torch.randn(8, 6)
    loss = model(x).pow(2).mean()
    loss.backward()
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
    if math.isfinite(grad_norm.item()):
        optimizer.step()
    print(it, loss.item())
