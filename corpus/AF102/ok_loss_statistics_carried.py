# OK: previous loss and a smoothed loss are carried for early stopping; they never reach backward().
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
x, y = torch.randn(64, 6), torch.randn(64, 1)

best = None
smoothed = None
bad_epochs = 0
for epoch in range(20):
    loss = nn.functional.mse_loss(net(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    value = loss.item()
    smoothed = value if smoothed is None else 0.9 * smoothed + 0.1 * value
    if best is not None and value >= best:
        bad_epochs += 1
    else:
        best, bad_epochs = value, 0
    if bad_epochs > 3:
        break
print(epoch, best, smoothed)
