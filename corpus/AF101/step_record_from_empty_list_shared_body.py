# The step record starts empty and is extended with a log-probability and a value that both come from one shared body's forward pass; after the critic's backward() and step, the actor's backward() needs the body's graph again, which was freed.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, 8), nn.Tanh())
        self.logits = nn.Linear(8, 2)
        self.value = nn.Linear(8, 1)

    def forward(self, obs):
        hidden = self.body(obs)
        dist = torch.distributions.Categorical(logits=self.logits(hidden))
        action = dist.sample()
        return action, dist.log_prob(action), self.value(hidden)


class Learner:
    def __init__(self):
        self.net = ActorCritic()
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=1e-3)
        self.record = []

    def act(self, obs):
        action, log_prob, value = self.net(obs)
        self.record.extend([log_prob, value])
        return action.item()

    def learn(self):
        log_prob, value, reward = self.record
        critic_loss = F.mse_loss(value, torch.tensor([reward]))
        self.optimizer.zero_grad()
        critic_loss.backward()
        self.optimizer.step()

        actor_loss = -log_prob * (reward - value.detach()).squeeze()
        self.optimizer.zero_grad()
        actor_loss.backward()
        self.optimizer.step()
        return critic_loss.item(), actor_loss.item()

    def run(self, steps):
        torch.manual_seed(0)
        for _ in range(steps):
            self.record = []
            self.act(torch.randn(3))
            self.record.append(1.0)
            print(self.learn())


Learner().run(3)
