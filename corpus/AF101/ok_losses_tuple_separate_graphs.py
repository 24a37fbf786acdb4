# OK: loss() returns a tuple of two losses built from separate forward passes (the critic on buffer actions, the actor on fresh ones); unpacking it keeps each loss's own graph, so the two backward() calls with a step() between them share nothing.
import torch
import torch.nn as nn


class SoftActorCritic:
    def __init__(self):
        self.actor = nn.Linear(3, 2)
        self.critic = nn.Linear(5, 1)
        self.actor_optimizer = torch.optim.Adam(self.actor.parameters(), lr=1e-3)
        self.critic_optimizer = torch.optim.Adam(self.critic.parameters(), lr=1e-3)

    def loss(self, states, actions, targets):
        new_actions = torch.tanh(self.actor(states))
        actor_loss = -self.critic(torch.cat((states, new_actions), 1)).mean()
        critic_loss = (self.critic(torch.cat((states, actions), 1)) - targets).pow(2).mean()
        return actor_loss, critic_loss

    def update(self, batch):
        states, actions, targets = batch
        actor_loss, critic_loss = self.loss(states, actions, targets)
        self.actor_optimizer.zero_grad()
        actor_loss.backward()
        self.actor_optimizer.step()
        self.critic_optimizer.zero_grad()
        critic_loss.backward()
        self.critic_optimizer.step()
        return actor_loss.item(), critic_loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    agent = SoftActorCritic()
    for _ in range(3):
        print(agent.update((torch.randn(8, 3), torch.randn(8, 2), torch.randn(8, 1))))
