# Not AF106: a Hessian-vector product differentiates the gradient again through the kept graph.
import torch
from torch import nn

torch.manual_seed(23)
model = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 1))
params = list(model.parameters())
x, y = torch.randn(12, 5), torch.randn(12, 1)

loss = nn.functional.mse_loss(model(x), y)
grads = torch.autograd.grad(loss, params, create_graph=True)
vector = [torch.randn_like(p) for p in params]
dot = sum((g * v).sum() for g, v in zip(grads, vector))
hvp = torch.autograd.grad(dot, params, retain_graph=True)
curvature = sum((h * v).sum() for h, v in zip(hvp, vector))
print(float(curvature))
