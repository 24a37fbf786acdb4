# AF103: forward turns the log-std parameter into a std with exp_(), an in-place op on an nn.Parameter (a leaf that requires grad).
import torch
import torch.nn as nn


class DiagonalGaussian(nn.Module):
    def __init__(self, obs=4, act=2):
        super().__init__()
        self.mean = nn.Linear(obs, act)
        self.log_std = nn.Parameter(torch.zeros(act))

    def forward(self, obs):
        mu = self.mean(obs)
        std = self.log_std.exp_()
        return mu + std * torch.randn_like(mu)


torch.manual_seed(0)
policy = DiagonalGaussian()
opt = torch.optim.Adam(policy.parameters(), lr=1e-3)
for _ in range(3):
    actions = policy(torch.randn(6, 4))
    loss = actions.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
