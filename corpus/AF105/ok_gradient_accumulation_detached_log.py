# OK: gradient accumulation over 4 micro-batches; the scaled loss is logged with `.detach()`.
import torch
import torch.nn as nn

torch.manual_seed(0)
ACCUM = 4
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
log_total = torch.zeros(())
optimizer.zero_grad()
for i in range(8):
    x, y = torch.randn(2, 3), torch.randn(2, 1)
    loss = nn.functional.mse_loss(model(x), y) / ACCUM
    loss.backward()
    log_total += loss.detach()
    if (i + 1) % ACCUM == 0:
        optimizer.step()
        optimizer.zero_grad()
        print("step loss", log_total.item())
        log_total.zero_()
