# The moving average is built from loss.item(): a Python float, no graph kept.
import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
ema = None
for step in range(5):
    loss = (model(torch.randn(10, 3)) - 1).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    ema = loss.item() if ema is None else 0.95 * ema + 0.05 * loss.item()
print(ema)
