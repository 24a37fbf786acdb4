# AF103: logistic regression with raw leaf tensors; the update w.sub_(lr * w.grad) runs outside torch.no_grad().
import torch

torch.manual_seed(0)
X = torch.randn(100, 3)
y = (X[:, 0] > 0).float()
w = torch.zeros(3, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
lr = 0.5

for epoch in range(5):
    logits = X @ w + b
    loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, y)
    loss.backward()
    w.sub_(lr * w.grad)
    b.sub_(lr * b.grad)
    w.grad = None
    b.grad = None
    print(epoch, loss.item())
