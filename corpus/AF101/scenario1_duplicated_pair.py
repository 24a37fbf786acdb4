# AF101: seed article scenario 1: a copy-pasted `loss.backward(); optimizer.step()` pair back-propagates `loss` twice.
# autofix-test: unsafe-fixes
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.MSELoss()

for epoch in range(3):
    x = torch.randn(16, 3)
    y = x.sum(dim=1, keepdim=True)
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    loss.backward()
    optimizer.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
