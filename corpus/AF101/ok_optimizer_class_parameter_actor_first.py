# Not AF101: optimizers built through a parameter that defaults to an optimizer class, and the actor's
# loss is back-propagated and stepped before the critic's step rewrites the critic's weights (the
# critic's gradients from the actor loss are cleared by its own zero_grad first).
import torch
import torch.nn as nn
from torch import optim


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, state, action):
        return self.body(torch.cat([state, action], -1))


class SoftActorCriticTrainer:
    def __init__(self, actor, critic, lr=1e-3, optimizer_class=optim.Adam):
        self.actor = actor
        self.critic = critic
        self.actor_optimizer = optimizer_class(self.actor.parameters(), lr=lr)
        self.critic_optimizer = optimizer_class(self.critic.parameters(), lr=lr)

    def train_step(self, batch):
        states, actions, targets = batch
        new_actions = torch.tanh(self.actor(states))
        actor_loss = -self.critic(states, new_actions).mean()
        critic_loss = (self.critic(states, actions) - targets).pow(2).mean()

        self.actor_optimizer.zero_grad()
        actor_loss.backward()
        self.actor_optimizer.step()

        self.critic_optimizer.zero_grad()
        critic_loss.backward()
        self.critic_optimizer.step()


torch.manual_seed(10)
trainer = SoftActorCriticTrainer(nn.Linear(3, 2), Critic())
for _ in range(2):
    trainer.train_step((torch.randn(8, 3), torch.randn(8, 2), torch.randn(8, 1)))
print("trained")
