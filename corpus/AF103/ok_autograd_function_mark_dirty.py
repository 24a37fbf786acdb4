# OK: a custom autograd.Function works in place in forward (ctx.mark_dirty) and on grad_output in backward.
import torch
import torch.nn as nn


class InplaceClampedReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, cap):
        x.clamp_(0, cap)
        ctx.mark_dirty(x)
        ctx.save_for_backward(x)
        ctx.cap = cap
        return x

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        grad = grad_output.clone()
        grad[(y <= 0) | (y >= ctx.cap)] = 0
        return grad, None


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 1)

    def forward(self, x):
        h = self.fc1(x) * 1.0
        return self.fc2(InplaceClampedReLU.apply(h, 6.0))


torch.manual_seed(0)
net = Net()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for _ in range(2):
    loss = net(torch.randn(5, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
