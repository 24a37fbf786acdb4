# ok: the in-place scaling hits halves of the observation batch (data, no grad), not halves of the network output.
import torch
import torch.nn as nn


class GaussianPolicy(nn.Module):
    def __init__(self, obs=5, act=2):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs, 16), nn.Tanh(), nn.Linear(16, 2 * act))

    def forward(self, obs):
        mean, log_std = self.body(obs).chunk(2, dim=-1)
        log_std = log_std.clamp(-5.0, 1.0)
        return mean + log_std.exp() * torch.randn_like(mean)


torch.manual_seed(0)
policy = GaussianPolicy()
opt = torch.optim.Adam(policy.parameters(), lr=1e-3)
for _ in range(3):
    batch = torch.randn(16, 5)
    first, second = batch.chunk(2)
    first.mul_(0.5)
    actions = policy(torch.cat([first, second]))
    loss = actions.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
