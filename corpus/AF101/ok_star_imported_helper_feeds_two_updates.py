# AF101 negative: an actor-critic update whose batch is built by a helper that comes in through a star import (from torch.nn.utils.rnn import *). The file never defines or imports the helper by name, so nothing is known of it, and it is handed no graph: its tensors are data, not the output of a forward pass. The critic's and the actor's losses each run their own forward passes on that data; they share no graph.
import random

import torch
from torch import nn
from torch.nn.utils.rnn import *


class ActorCritic:
    def __init__(self):
        self.actor = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1))
        self.critic = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
        self.actor_opt = torch.optim.Adam(self.actor.parameters(), lr=1e-3)
        self.critic_opt = torch.optim.Adam(self.critic.parameters(), lr=1e-3)

    def update(self, samples):
        state, action, reward = (pad_sequence(list(column), batch_first=True) for column in zip(*samples))
        with torch.no_grad():
            target = reward + 0.9 * self.critic(torch.cat([state, self.actor(state)], 1))
        critic_loss = (self.critic(torch.cat([state, action], 1)) - target).pow(2).mean()
        self.critic_opt.zero_grad()
        critic_loss.backward()
        self.critic_opt.step()
        actor_loss = -self.critic(torch.cat([state, self.actor(state)], 1)).mean()
        self.actor_opt.zero_grad()
        actor_loss.backward()
        self.actor_opt.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    random.seed(0)
    agent = ActorCritic()
    memory = [(torch.randn(3), torch.randn(1), torch.randn(1)) for _ in range(64)]
    for _ in range(3):
        agent.update(random.sample(memory, 8))
