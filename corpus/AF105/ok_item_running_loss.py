# OK: running loss accumulated with `loss.item()`, accuracy from argmax comparisons.
import torch
import torch.nn as nn

torch.manual_seed(0)
x_all, y_all = torch.randn(60, 8), torch.randint(0, 3, (60,))
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)

for epoch in range(3):
    running_loss, correct = 0.0, 0
    for i in range(0, 60, 20):
        x, y = x_all[i:i + 20], y_all[i:i + 20]
        optimizer.zero_grad()
        logits = model(x)
        loss = nn.functional.cross_entropy(logits, y)
        loss.backward()
        optimizer.step()
        running_loss += loss.item() * x.size(0)
        correct += (logits.argmax(dim=1) == y).sum().item()
    print(epoch, running_loss / 60, correct / 60)
