# OK: vector-Jacobian products on a non-scalar output with explicit `gradient=` and retain_graph=True between rows.
import torch
import torch.nn as nn

torch.manual_seed(0)
layer = nn.Linear(3, 2)
optimizer = torch.optim.SGD(layer.parameters(), lr=0.01)

for step in range(2):
    optimizer.zero_grad()
    inputs = torch.randn(4, 3, requires_grad=True)
    outputs = layer(inputs)
    rows = []
    for k in range(2):
        basis = torch.zeros_like(outputs)
        basis[:, k] = 1.0
        outputs.backward(gradient=basis, retain_graph=True)
        rows.append(inputs.grad.clone())
        inputs.grad = None
    outputs.backward(torch.ones_like(outputs))
    optimizer.step()
    print(step, torch.stack(rows).shape)
