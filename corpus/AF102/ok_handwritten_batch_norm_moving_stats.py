# ok: a hand-written batch norm (as in textbook code) keeps moving averages on the module and updates them from each batch's statistics; where gradients flow its output uses only the batch's own mean and variance, so no backward() reaches the graph a previous batch left in the moving averages.
import torch
import torch.nn as nn

torch.manual_seed(0)


def batch_norm(X, gamma, beta, moving_mean, moving_var, eps, momentum):
    if not torch.is_grad_enabled():
        X_hat = (X - moving_mean) / torch.sqrt(moving_var + eps)
    else:
        mean = X.mean(dim=0)
        var = ((X - mean) ** 2).mean(dim=0)
        X_hat = (X - mean) / torch.sqrt(var + eps)
        moving_mean = momentum * moving_mean + (1.0 - momentum) * mean
        moving_var = momentum * moving_var + (1.0 - momentum) * var
    return gamma * X_hat + beta, moving_mean, moving_var


class BatchNorm(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.gamma = nn.Parameter(torch.ones(1, features))
        self.beta = nn.Parameter(torch.zeros(1, features))
        self.moving_mean = torch.zeros(1, features)
        self.moving_var = torch.ones(1, features)

    def forward(self, X):
        Y, self.moving_mean, self.moving_var = batch_norm(
            X, self.gamma, self.beta, self.moving_mean, self.moving_var, eps=1e-5, momentum=0.9
        )
        return Y


net = nn.Sequential(nn.Linear(4, 8), BatchNorm(8), nn.Linear(8, 1))
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
for step in range(4):
    optimizer.zero_grad()
    loss = net(torch.randn(16, 4)).pow(2).mean()
    loss.backward()
    optimizer.step()
    print(step, round(loss.item(), 4))
with torch.no_grad():
    print(net(torch.randn(2, 4)).shape)
