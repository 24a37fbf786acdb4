# OK: micro-batch losses are summed into `total` and the sum is back-propagated once per step.
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Linear(5, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.05)

for step in range(3):
    batch = torch.randn(16, 5)
    target = torch.randn(16, 1)
    total = 0
    for xs, ys in zip(batch.chunk(4), target.chunk(4)):
        total = total + nn.functional.mse_loss(net(xs), ys) / 4
    opt.zero_grad()
    total.backward()
    opt.step()
    print(step, total.item())
