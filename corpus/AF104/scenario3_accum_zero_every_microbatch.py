# AF104: seed article scenario 3: gradient accumulation whose zero_grad() runs on every micro-batch, so only the last one counts.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.CrossEntropyLoss()
accumulation_steps = 4
loader = [(torch.randn(4, 10), torch.randint(0, 2, (4,))) for _ in range(8)]

for i, (inputs, labels) in enumerate(loader):
    optimizer.zero_grad()
    outputs = model(inputs)
    loss = criterion(outputs, labels) / accumulation_steps
    loss.backward()
    if (i + 1) % accumulation_steps == 0:
        optimizer.step()
        print(f"update after batch {i}: loss {loss.item() * accumulation_steps:.4f}")
