# OK: a hand-written batch norm updates its running statistics (buffers) in place under torch.no_grad().
import torch
import torch.nn as nn


class MyBatchNorm1d(nn.Module):
    def __init__(self, features, momentum=0.1, eps=1e-5):
        super().__init__()
        self.momentum = momentum
        self.eps = eps
        self.gamma = nn.Parameter(torch.ones(features))
        self.beta = nn.Parameter(torch.zeros(features))
        self.register_buffer("running_mean", torch.zeros(features))
        self.register_buffer("running_var", torch.ones(features))
        self.register_buffer("num_batches_tracked", torch.tensor(0))

    def forward(self, x):
        if self.training:
            mean = x.mean(0)
            var = x.var(0, unbiased=False)
            with torch.no_grad():
                self.running_mean.mul_(1 - self.momentum).add_(self.momentum * mean)
                self.running_var.mul_(1 - self.momentum).add_(self.momentum * var)
            self.num_batches_tracked += 1
        else:
            mean, var = self.running_mean, self.running_var
        return self.gamma * (x - mean) / torch.sqrt(var + self.eps) + self.beta


torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 8), MyBatchNorm1d(8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.SGD(net.parameters(), lr=0.05)
for step in range(3):
    loss = net(torch.randn(16, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
net.eval()
with torch.no_grad():
    net(torch.randn(2, 4))
