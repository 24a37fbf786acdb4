# AF106: gradient accumulation over micro-batches; each micro-batch's graph is retained for nothing.
import torch
from torch import nn

torch.manual_seed(3)
model = nn.Sequential(nn.Linear(5, 20), nn.SiLU(), nn.Linear(20, 1))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
accumulation = 4
batches = [(torch.randn(8, 5), torch.randn(8, 1)) for _ in range(12)]

optimizer.zero_grad()
for index, (x, y) in enumerate(batches):
    loss = nn.functional.smooth_l1_loss(model(x), y) / accumulation
    loss.backward()
    if (index + 1) % accumulation == 0:
        optimizer.step()
        optimizer.zero_grad()
