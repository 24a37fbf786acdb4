# Not AF106: PCGrad back-propagates each task loss through one shared graph and reads the gradients in between.
import torch
from torch import nn

torch.manual_seed(27)
shared = nn.Sequential(nn.Linear(4, 16), nn.ReLU())
heads = nn.ModuleList([nn.Linear(16, 1) for _ in range(2)])
params = [*shared.parameters(), *heads.parameters()]
optimizer = torch.optim.SGD(params, lr=0.05)

for step in range(3):
    x = torch.randn(8, 4)
    features = shared(x)
    task_losses = [head(features).pow(2).mean() for head in heads]
    task_grads = []
    for loss in task_losses:
        optimizer.zero_grad()
        loss.backward(retain_graph=True)
        task_grads.append([p.grad.clone() if p.grad is not None else torch.zeros_like(p) for p in params])
    flat = [torch.cat([g.flatten() for g in grads]) for grads in task_grads]
    if torch.dot(flat[0], flat[1]) < 0:
        flat[0] = flat[0] - torch.dot(flat[0], flat[1]) / flat[1].pow(2).sum() * flat[1]
    combined = flat[0] + flat[1]
    offset = 0
    for p in params:
        p.grad = combined[offset:offset + p.numel()].view_as(p).clone()
        offset += p.numel()
    optimizer.step()
