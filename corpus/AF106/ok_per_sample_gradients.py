# Not AF106: per-sample gradient norms, one backward per sample of one batch's graph.
import torch
from torch import nn

torch.manual_seed(28)
model = nn.Linear(5, 1)
x, y = torch.randn(6, 5), torch.randn(6, 1)
per_sample = (model(x) - y).pow(2).squeeze(1)
norms = []
for i in range(per_sample.shape[0]):
    model.zero_grad()
    per_sample[i].backward(retain_graph=True)
    norms.append(model.weight.grad.norm().item())
print(norms)
