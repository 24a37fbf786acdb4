# verify: codes=AF104 verdict=intended-change
# Gradient accumulation over 4 micro-batches, but zero_grad() runs on every micro-batch.
import torch
from torch import nn

model = nn.Linear(5, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step, batch in enumerate(torch.randn(16, 8, 5)):
    loss = model(batch).pow(2).mean() / 4
    loss.backward()
    if (step + 1) % 4 == 0:
        optimizer.step()
        optimizer.zero_grad()
