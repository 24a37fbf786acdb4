# AF105: every step's loss is concatenated onto a growing tensor of the loss curve, graph and all; the curve is only printed.
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(5, 10), nn.Tanh(), nn.Linear(10, 1))
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
curve = torch.empty(0)
for step in range(6):
    x, y = torch.randn(12, 5), torch.randn(12, 1)
    loss = nn.functional.mse_loss(net(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    curve = torch.cat([curve, loss.reshape(1)])
print(curve.mean().item(), curve.argmin().item())
