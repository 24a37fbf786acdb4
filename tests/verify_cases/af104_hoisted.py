# A verification input; the .patched.py files that name it say what the verifier must find.
# Correct already: zero_grad() after step(). Moving it before backward() changes nothing.
import torch
from torch import nn

model = nn.Linear(5, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(4):
    loss = model(torch.randn(8, 5)).pow(2).mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
