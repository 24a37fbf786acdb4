# OK: the losses come back in a namedtuple built with keywords; each field keeps the graph of its own forward pass, so back-propagating `losses.critic` after stepping on `losses.actor` reaches no freed graph.
from collections import namedtuple

import torch
import torch.nn as nn

Losses = namedtuple("Losses", ["actor", "critic", "temperature"])


class Learner:
    def __init__(self):
        self.actor = nn.Linear(3, 2)
        self.critic = nn.Linear(5, 1)
        self.log_alpha = torch.zeros(1, requires_grad=True)
        self.optimizers = {
            "actor": torch.optim.Adam(self.actor.parameters(), lr=1e-3),
            "critic": torch.optim.Adam(self.critic.parameters(), lr=1e-3),
            "temperature": torch.optim.Adam([self.log_alpha], lr=1e-3),
        }

    def compute_loss(self, states, actions, targets):
        new_actions = torch.tanh(self.actor(states))
        entropy = new_actions.pow(2).sum(1)
        losses = Losses(
            actor=-self.critic(torch.cat((states, new_actions), 1)).mean(),
            critic=(self.critic(torch.cat((states, actions), 1)) - targets).pow(2).mean(),
            temperature=-(self.log_alpha * entropy.detach()).mean(),
        )
        return losses, {"entropy": entropy.mean().item()}

    def train_step(self, batch):
        losses, stats = self.compute_loss(*batch)
        self.optimizers["temperature"].zero_grad()
        losses.temperature.backward()
        self.optimizers["temperature"].step()
        self.optimizers["actor"].zero_grad()
        losses.actor.backward()
        self.optimizers["actor"].step()
        self.optimizers["critic"].zero_grad()
        losses.critic.backward()
        self.optimizers["critic"].step()
        return stats


if __name__ == "__main__":
    torch.manual_seed(0)
    learner = Learner()
    for _ in range(3):
        print(learner.train_step((torch.randn(8, 3), torch.randn(8, 2), torch.randn(8, 1))))
