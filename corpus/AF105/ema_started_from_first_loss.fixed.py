# AF105: a smoothed loss that starts from the first loss and then decays keeps every step's graph (both branches keep it).
import torch
import torch.nn as nn

torch.manual_seed(0)

regressor = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(regressor.parameters(), lr=0.05)
running = None
step = 0
while step < 8:
    features, target = torch.randn(10, 6), torch.randn(10, 1)
    loss = nn.functional.smooth_l1_loss(regressor(features), target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    running = loss.detach() if running is None else 0.95 * running + (0.05 * loss).detach()
    step += 1
print(f"smoothed loss {float(running):.4f}")
