# verify: codes=AF101 verdict=repaired
# No optimizer: a hand-written update; two backward calls through one graph.
import torch

w = torch.randn(3, requires_grad=True)
for step in range(3):
    x = torch.randn(5, 3)
    y = torch.tanh(x @ w)
    first, second = y.pow(2).mean(), y.sum()
    (first + second).backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
        w.grad = None
