# Not AF106: one autograd.grad per output of one graph builds a Jacobian row by row.
import torch
from torch import nn

torch.manual_seed(24)
net = nn.Sequential(nn.Linear(3, 6), nn.Softplus(), nn.Linear(6, 4))
point = torch.randn(3, requires_grad=True)
outputs = net(point)
rows = []
for index in range(outputs.shape[0]):
    (row,) = torch.autograd.grad(outputs[index], point, retain_graph=True)
    rows.append(row)
jacobian = torch.stack(rows)
print(jacobian.shape)
