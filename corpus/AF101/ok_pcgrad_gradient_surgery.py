# OK: PCGrad-style gradient surgery: per-task gradients are read between the backward calls and written back by hand.
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
opt = torch.optim.SGD(net.parameters(), lr=0.05)
for step in range(3):
    x, y = torch.randn(6, 4), torch.randn(6, 2)
    out = net(x)
    task1 = (out[:, 0] - y[:, 0]).pow(2).mean()
    task2 = (out[:, 1] - y[:, 1]).abs().mean()
    opt.zero_grad()
    task1.backward(retain_graph=True)
    g1 = [p.grad.clone() for p in net.parameters()]
    opt.zero_grad()
    task2.backward()
    g2 = [p.grad.clone() for p in net.parameters()]
    dot = sum((a * b).sum() for a, b in zip(g1, g2))
    for p, a, b in zip(net.parameters(), g1, g2):
        p.grad = a + b - (dot.clamp(max=0) / sum((c * c).sum() for c in g2)) * b
    opt.step()
    print(step, task1.item(), task2.item())
