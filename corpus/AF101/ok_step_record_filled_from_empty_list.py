# ok: each step starts an empty record list, extends it with the actor's log-probability and the critic's value, then appends the reward; unpacked name by name, the critic's loss reads only the value and the actor's only the log-probability (its advantage detached), so the two backward calls share no graph.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Actor(nn.Module):
    def __init__(self):
        super().__init__()
        self.logits = nn.Linear(3, 2)

    def forward(self, obs):
        dist = torch.distributions.Categorical(logits=self.logits(obs))
        action = dist.sample()
        return action, dist.log_prob(action)


class Learner:
    def __init__(self):
        self.actor = Actor()
        self.critic = nn.Linear(3, 1)
        self.actor_opt = torch.optim.Adam(self.actor.parameters(), lr=1e-3)
        self.critic_opt = torch.optim.Adam(self.critic.parameters(), lr=1e-3)
        self.record = []

    def act(self, obs):
        action, log_prob = self.actor(obs)
        value = self.critic(obs)
        self.record.extend([log_prob, value])
        return action.item()

    def learn(self):
        log_prob, value, reward, next_obs = self.record
        target = reward + 0.9 * self.critic(next_obs)
        critic_loss = F.mse_loss(value, target.detach())
        self.critic_opt.zero_grad()
        critic_loss.backward()
        self.critic_opt.step()

        actor_loss = -log_prob * (target - value).detach().squeeze()
        self.actor_opt.zero_grad()
        actor_loss.backward()
        self.actor_opt.step()
        return critic_loss.item(), actor_loss.item()

    def run(self, steps):
        torch.manual_seed(0)
        obs = torch.randn(3)
        for _ in range(steps):
            self.record = []
            self.act(obs)
            next_obs = torch.randn(3)
            self.record.append(1.0)
            self.record.append(next_obs)
            print(self.learn())
            obs = next_obs


Learner().run(3)
