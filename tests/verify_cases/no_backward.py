# A verification input; the .patched.py files that name it say what the verifier must find.
# Inference only: nothing to compare.
import torch

model = torch.nn.Linear(3, 1)
with torch.no_grad():
    print(model(torch.randn(2, 3)).sum().item())
