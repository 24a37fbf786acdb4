# AF105: MLP classifier sums `loss` (with its graph) into a float total that is only printed.
import torch
import torch.nn as nn

torch.manual_seed(0)
features = torch.randn(96, 10)
labels = torch.randint(0, 4, (96,))

model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.CrossEntropyLoss()

for epoch in range(3):
    total_loss = 0.0
    for i in range(0, 96, 16):
        x, y = features[i:i + 16], labels[i:i + 16]
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total_loss += loss
    print(f"epoch {epoch}: mean loss {total_loss / 6:.4f}")
