# AF102: the regression targets are made once, before the training loop, from a "teacher" weight created with requires_grad=True; the matrix product keeps the inputs for its backward, so the first batch's backward() frees that graph and the second batch fails.
import torch

torch.manual_seed(0)
inputs = torch.randn(64, 3)
teacher_w = torch.randn(3, 1, requires_grad=True)
teacher_b = torch.randn(1, requires_grad=True)
targets = torch.matmul(inputs, teacher_w) + teacher_b


def predict(x, w, b):
    return torch.tanh(x @ w + b)


student_w = torch.zeros(3, 1, requires_grad=True)
student_b = torch.zeros(1, requires_grad=True)
optimizer = torch.optim.SGD([student_w, student_b], lr=0.05)
for epoch in range(2):
    for start in range(0, 64, 16):
        x, y = inputs[start:start + 16], targets[start:start + 16]
        optimizer.zero_grad()
        loss = (predict(x, student_w, student_b) - y).pow(2).mean()
        loss.backward()
        optimizer.step()
    print(epoch, loss.item())
