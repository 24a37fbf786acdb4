# verify: codes=AF105 verdict=identical
# total_loss keeps every iteration's graph alive; only used for logging.
import torch
from torch import nn

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
total_loss = 0
for step in range(6):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    total_loss += loss.item()
print(f"mean loss {float(total_loss) / 6:.4f}")
