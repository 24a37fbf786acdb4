# AF101: the agent's model comes from a builder; its normaliser takes the batch statistics under torch.no_grad() but scales the observations by a learned parameter outside that block, so the normalised observations carry a graph, which the critic's backward frees before the actor's backward goes through it again.
import torch
import torch.nn as nn


class Policy(nn.Module):
    def __init__(self, scaled=True):
        super().__init__()
        self.actor = nn.Linear(4, 2)
        self.critic = nn.Linear(6, 1)
        self.scaled = scaled
        self.gain = nn.Parameter(torch.ones(4))

    def normalize(self, states):
        with torch.no_grad():
            mean, std = states.mean(0), states.std(0) + 1e-6
        return self.gain * (states - mean) / std if self.scaled else states


class PolicyBuilder:
    def build(self):
        return Policy()


class Learner:
    def __init__(self, builder):
        self.model = builder.build()
        self.critic_opt = torch.optim.SGD(self.model.critic.parameters(), lr=0.01)
        self.actor_opt = torch.optim.SGD(self.model.actor.parameters(), lr=0.01)

    def critic_step(self, states, actions, targets):
        q = self.model.critic(torch.cat([states, actions], -1))
        loss = (q - targets).pow(2).mean()
        self.critic_opt.zero_grad()
        loss.backward()
        self.critic_opt.step()
        return loss.item()

    def actor_step(self, states):
        actions = torch.tanh(self.model.actor(states))
        loss = -self.model.critic(torch.cat([states, actions], -1)).mean()
        self.actor_opt.zero_grad()
        loss.backward()
        self.actor_opt.step()
        return loss.item()

    def prepare(self, states):
        if isinstance(states, dict):
            states = states["states"]
        return self.model.normalize(states)

    def learn(self, states, actions, targets):
        states = self.prepare(states)
        critic_loss = self.critic_step(states, actions, targets)
        actor_loss = self.actor_step(states)
        return critic_loss, actor_loss


torch.manual_seed(0)
learner = Learner(PolicyBuilder())
for _ in range(3):
    print(learner.learn(torch.randn(8, 4), torch.randn(8, 2), torch.randn(8, 1)))
