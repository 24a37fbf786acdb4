# ok: two critics evaluated in one tuple assignment; each critic's loss goes through its own network only, so the second backward after the first critic's step frees nothing it needs.
import torch
import torch.nn as nn


class TwinCriticUpdate:
    def __init__(self, critic_a, critic_b):
        self.critic_a = critic_a
        self.critic_b = critic_b
        self.optim_a = torch.optim.Adam(critic_a.parameters(), lr=1e-3)
        self.optim_b = torch.optim.Adam(critic_b.parameters(), lr=1e-3)

    def learn(self, states, target):
        value_a, value_b = self.critic_a(states), self.critic_b(states)
        loss_a = (value_a - target).pow(2).mean()
        self.optim_a.zero_grad()
        loss_a.backward()
        self.optim_a.step()
        loss_b = (value_b - target).pow(2).mean()
        self.optim_b.zero_grad()
        loss_b.backward()
        self.optim_b.step()
        return loss_a.item(), loss_b.item()


torch.manual_seed(0)
update = TwinCriticUpdate(nn.Linear(3, 1), nn.Linear(3, 1))
for _ in range(3):
    print(update.learn(torch.randn(6, 3), torch.randn(6, 1)))
