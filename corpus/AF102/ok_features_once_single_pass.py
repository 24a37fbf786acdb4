# ok: features computed before a loop that stops after its first backward (a search for the first head that fits): no second backward reaches the freed graph.
import torch
import torch.nn as nn

torch.manual_seed(0)
backbone = nn.Linear(5, 8)
heads = [nn.Linear(8, 1) for _ in range(3)]
features = backbone(torch.randn(4, 5))

for head in heads:
    loss = head(features).pow(2).mean()
    if loss.item() < 10.0:
        loss.backward()
        break
print([p.grad is not None for p in backbone.parameters()])
