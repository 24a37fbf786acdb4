# AF105: the epoch's mean loss is updated incrementally from each batch's loss tensor (mean + (loss - mean) / n), so the running mean keeps every batch's graph history.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(7, 14), nn.ReLU(), nn.Linear(14, 3))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
for epoch in range(2):
    mean_loss = 0.0
    for batch_idx in range(6):
        inputs, labels = torch.randn(10, 7), torch.randint(0, 3, (10,))
        optimizer.zero_grad()
        loss = criterion(model(inputs), labels)
        loss.backward()
        optimizer.step()
        mean_loss = mean_loss + (loss - mean_loss) / (batch_idx + 1)
    print(f"epoch {epoch}: mean loss {mean_loss:.4f}")
