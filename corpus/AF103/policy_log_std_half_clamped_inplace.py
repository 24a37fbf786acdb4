# AF103: the policy head's output is chunked into mean and log-std and the log-std view is clamped in place; autograd refuses writes to views from chunk.
import torch
import torch.nn as nn


class GaussianPolicy(nn.Module):
    def __init__(self, obs=5, act=2):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs, 16), nn.Tanh(), nn.Linear(16, 2 * act))

    def forward(self, obs):
        mean, log_std = self.body(obs).chunk(2, dim=-1)
        log_std.clamp_(-5.0, 1.0)
        noise = torch.randn_like(mean)
        return mean + log_std.exp() * noise


torch.manual_seed(0)
policy = GaussianPolicy()
opt = torch.optim.Adam(policy.parameters(), lr=1e-3)
for _ in range(3):
    actions = policy(torch.randn(8, 5))
    loss = actions.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
