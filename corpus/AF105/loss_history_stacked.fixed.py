# AF105: the loss history is later `torch.stack`ed for statistics, so it needs `.detach()`.
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(5, 8), nn.GELU(), nn.Linear(8, 1))
optimizer = torch.optim.AdamW(net.parameters(), lr=3e-3)

history = []
step = 0
while step < 6:
    x = torch.randn(16, 5)
    y = x.sum(dim=1, keepdim=True)
    optimizer.zero_grad()
    loss = (net(x) - y).pow(2).mean()
    loss.backward()
    optimizer.step()
    history.append(loss.detach())
    step += 1

curve = torch.stack(history)
print("first/last", curve[0].item(), curve[-1].item(), "std", curve.std().item())
