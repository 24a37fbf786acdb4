# OK: L-BFGS: zero_grad() and backward() live in the closure that step() calls.
import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.linspace(-1, 1, 20).unsqueeze(1)
y = 3 * x + 0.5
line = nn.Linear(1, 1)
optimizer = torch.optim.LBFGS(line.parameters(), lr=0.5, max_iter=5)


def closure():
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(line(x), y)
    loss.backward()
    return loss


for it in range(3):
    loss = optimizer.step(closure)
    print(it, loss.item())
