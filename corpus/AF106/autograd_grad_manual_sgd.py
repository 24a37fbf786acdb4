# AF106: torch.autograd.grad computes each step's gradients once; keeping the graph is wasted memory.
import torch

torch.manual_seed(7)
w = torch.randn(3, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
x = torch.randn(50, 3)
y = x @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.3

for step in range(8):
    prediction = torch.tanh(x @ w + b)
    loss = (prediction - y).pow(2).mean()
    grad_w, grad_b = torch.autograd.grad(loss, [w, b], retain_graph=True)
    with torch.no_grad():
        w -= 0.1 * grad_w
        b -= 0.1 * grad_b
print(float(loss))
