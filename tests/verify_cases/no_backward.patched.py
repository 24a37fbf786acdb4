# verify: codes=AF105 verdict=inconclusive
# Inference only: nothing to compare.
import torch

model = torch.nn.Linear(3, 1)
with torch.no_grad():
    _ = (model(torch.randn(2, 3)).sum().item())
