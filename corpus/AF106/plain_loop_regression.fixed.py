# AF106: the only backward of each iteration keeps its graph; the next iteration builds a new one.
import torch
from torch import nn

torch.manual_seed(0)
features = torch.randn(64, 8)
targets = features @ torch.randn(8, 1) + 0.1 * torch.randn(64, 1)

model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(4):
    for start in range(0, 64, 16):
        x, y = features[start:start + 16], targets[start:start + 16]
        prediction = model(x)
        loss = nn.functional.mse_loss(prediction, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch}: {loss.item():.4f}")
