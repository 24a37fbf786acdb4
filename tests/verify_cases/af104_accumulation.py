# A verification input; the .patched.py files that name it say what the verifier must find.
# Gradient accumulation over 4 micro-batches, but zero_grad() runs on every micro-batch.
import torch
from torch import nn

model = nn.Linear(5, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step, batch in enumerate(torch.randn(16, 8, 5)):
    optimizer.zero_grad()
    loss = model(batch).pow(2).mean() / 4
    loss.backward()
    if (step + 1) % 4 == 0:
        optimizer.step()
