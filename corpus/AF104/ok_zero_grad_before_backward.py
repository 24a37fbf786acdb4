# OK: the canonical loop: zero_grad() before the forward pass, then backward() and step().
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.CrossEntropyLoss()
for epoch in range(3):
    inputs, targets = torch.randn(6, 4), torch.randint(0, 3, (6,))
    optimizer.zero_grad()
    loss = criterion(model(inputs), targets)
    loss.backward()
    optimizer.step()
    print(epoch, loss.item())
