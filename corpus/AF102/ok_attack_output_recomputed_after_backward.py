# OK: an iterative input attack. Each iteration back-propagates the current output, steps the
# input, re-makes it as a fresh leaf and only then computes the next output from it. The output
# carried into the next iteration is a graph built after this iteration's backward, so the next
# backward walks a new graph, never the one it freed.
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 3))
image = torch.randn(4, 5)
probe = image.clone().requires_grad_(True)
scores = net(probe)
scores = scores / scores.norm(dim=1, keepdim=True)
goal = torch.zeros_like(scores)
for step in range(5):
    gap = (scores - goal).pow(2).sum()
    gap.backward()
    probe = (probe + 0.02 * probe.grad.sign()).detach().requires_grad_(True)
    if step == 4:
        break
    scores = net(probe)
    scores = scores / scores.norm(dim=1, keepdim=True)
print("attack finished", gap.item())
