# AF103: importance weights exp(log_ratio) are capped with `w[w > cap] = cap`; exp's backward needs w. Exact as masked_fill.
import torch
import torch.nn as nn


class Policy(nn.Module):
    def __init__(self, obs_dim=4, n_actions=3):
        super().__init__()
        self.pi = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, n_actions))

    def forward(self, obs):
        return self.pi(obs).log_softmax(-1)


def surrogate_loss(policy, obs, actions, old_logp, advantages):
    logp = policy(obs).gather(1, actions[:, None]).squeeze(1)
    w = torch.exp(logp - old_logp)
    w[w > 10.0] = 10.0
    return -(w * advantages).mean()


torch.manual_seed(0)
policy = Policy()
opt = torch.optim.Adam(policy.parameters(), lr=1e-3)
for update in range(3):
    obs = torch.randn(20, 4)
    actions = torch.randint(0, 3, (20,))
    old_logp = torch.full((20,), -1.1)
    adv = torch.randn(20)
    loss = surrogate_loss(policy, obs, actions, old_logp, adv)
    opt.zero_grad()
    loss.backward()
    opt.step()
