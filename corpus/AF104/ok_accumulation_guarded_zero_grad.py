# OK: accumulation that zeroes at the start of each window: zero_grad() is itself guarded by the modulo test.
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Linear(5, 2)
opt = torch.optim.SGD(net.parameters(), lr=0.05)
accum = 3
for step in range(9):
    if step % accum == 0:
        opt.zero_grad(set_to_none=True)
    x, y = torch.randn(4, 5), torch.randn(4, 2)
    loss = nn.functional.mse_loss(net(x), y) / accum
    loss.backward()
    if step % accum == accum - 1:
        opt.step()
        print(step, loss.item())
