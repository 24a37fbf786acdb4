# AF105: a per-call table is filled step by step with an auxiliary head's output that no backward() goes through, so every step's graph (the tanh activations it saved) stays alive until the loop ends.
import torch
import torch.nn as nn


class Learner:
    def __init__(self):
        self.body = nn.Sequential(nn.Linear(4, 16), nn.Tanh())
        self.critic = nn.Linear(16, 3)
        self.aux = nn.Linear(16, 3)
        self.opt = torch.optim.SGD([*self.body.parameters(), *self.critic.parameters()], lr=0.05)

    def fit_critic(self, obs, targets):
        aux_table = torch.zeros(obs.size(0), obs.size(1), 3)
        for t in range(obs.size(1)):
            h = self.body(obs[:, t])
            aux_table[:, t] = torch.tanh(self.aux(h))
            loss = (self.critic(h) - targets[:, t]).pow(2).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
        print("aux mean", aux_table.mean().item())


torch.manual_seed(0)
learner = Learner()
for update in range(3):
    learner.fit_critic(torch.randn(2, 6, 4), torch.randn(2, 6, 3))
print("ok")
