# OK: alternating updates: each loss gets its own fresh forward pass and its own optimizer step.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Actor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))

    def forward(self, s):
        return self.net(s)


torch.manual_seed(0)
actor, critic = Actor(), nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 1))
actor_opt = torch.optim.Adam(actor.parameters(), lr=1e-3)
critic_opt = torch.optim.Adam(critic.parameters(), lr=1e-3)
for t in range(3):
    state, target_q = torch.randn(5, 4), torch.randn(5, 1)
    action = actor(state)
    critic_loss = F.mse_loss(critic(torch.cat([state, action.detach()], 1)), target_q)
    critic_opt.zero_grad()
    critic_loss.backward()
    critic_opt.step()
    actor_loss = -critic(torch.cat([state, action], 1)).mean()
    actor_opt.zero_grad()
    actor_loss.backward()
    actor_opt.step()
    print(t, critic_loss.item(), actor_loss.item())
