# ok: the targets are made once under torch.no_grad() (no graph), and the only value derived from a trainable leaf before the loop is a reshape, which keeps nothing for its backward and can be back-propagated every iteration.
import torch

torch.manual_seed(0)
inputs = torch.randn(64, 3)
teacher_w = torch.randn(3, 1, requires_grad=True)
with torch.no_grad():
    targets = torch.matmul(inputs, teacher_w) + 0.5

student_w = torch.zeros(3, requires_grad=True)
column = student_w.view(3, 1)
optimizer = torch.optim.SGD([student_w], lr=0.05)
for epoch in range(2):
    for start in range(0, 64, 16):
        x, y = inputs[start:start + 16], targets[start:start + 16]
        optimizer.zero_grad()
        loss = (x @ column - y).pow(2).mean()
        loss.backward()
        optimizer.step()
    print(epoch, loss.item())
