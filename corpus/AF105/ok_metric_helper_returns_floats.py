# A metrics helper takes the prediction with its graph but hands back Python floats; adding those up is fine.
import torch
import torch.nn as nn

torch.manual_seed(0)


def heading_error(pred, target):
    gap = (pred - target).abs()
    return gap.mean().item(), gap[:, 0].mean().item(), float(gap[:, 1].max())


net = nn.Linear(6, 2)
opt = torch.optim.SGD(net.parameters(), lr=0.05)
mean_gap = 0.0
first_gap = 0.0
for step in range(4):
    feats, goal = torch.randn(16, 6), torch.randn(16, 2)
    pred = net(feats)
    loss = (pred - goal).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    gap, head, tail = heading_error(pred, goal)
    mean_gap += gap
    first_gap = first_gap + head
print(mean_gap / 4, first_gap)
