# verify: codes=AF104 verdict=inconclusive  (nondeterminism)
# Gradients depend on OS entropy, which no seed fixes.
import os
import torch

model = torch.nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    noise = torch.tensor(list(os.urandom(3)), dtype=torch.float32).unsqueeze(0)
    loss = model(noise).pow(2).mean()
    model.zero_grad()
    loss.backward()
    optimizer.step()
