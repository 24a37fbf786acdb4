# An iterative input attack that steps the input through a differentiable squashing (`tanh`)
# without making it a fresh leaf. The output recomputed after the backward is built on the
# stepped input, whose graph reaches back through the previous iterations' `tanh` nodes; the
# next backward walks those nodes, which an earlier backward already freed:
# "Trying to backward through the graph a second time".
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 3))
start = torch.randn(4, 5, requires_grad=True)
probe = start
scores = net(probe)
goal = torch.zeros_like(scores)
for step in range(5):
    gap = (scores - goal).pow(2).sum()
    gap.backward()
    probe = probe.detach()
    probe = torch.tanh(probe + 0.02 * start.grad.sign())
    scores = net(probe)
print("attack finished", gap.item())
