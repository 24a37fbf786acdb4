# AF106: torch.autograd.grad computes each step's gradients once; keeping the graph is wasted memory.
import torch

torch.manual_seed(7)
w = torch.randn(3, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
optimizer = torch.optim.SGD([w, b], lr=0.1)
x = torch.randn(50, 3)
y = x @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.3

for step in range(8):
    prediction = torch.tanh(x @ w + b)
    loss = (prediction - y).pow(2).mean()
    grad_w, grad_b = torch.autograd.grad(loss, [w, b])
    w.grad, b.grad = grad_w, grad_b
    optimizer.step()
print(float(loss))
