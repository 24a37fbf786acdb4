# OK: training logs `loss.detach()`; validation sums tensor losses under torch.no_grad().
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 1))
optimizer = torch.optim.Adam(model.parameters())
train = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(3)]
valid = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(2)]

for epoch in range(2):
    model.train()
    train_losses = []
    for x, y in train:
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        train_losses.append(loss.detach())

    model.eval()
    val_total = torch.zeros(())
    with torch.no_grad():
        for x, y in valid:
            val_total += nn.functional.mse_loss(model(x), y)
    print(epoch, torch.stack(train_losses).mean().item(), (val_total / len(valid)).item())
