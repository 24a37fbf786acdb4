# OK: SAC-style update: temperature, critic and actor each zero, back-propagate and step their own optimizer in turn.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Agent:
    def __init__(self, obs_dim=3, act_dim=1):
        self.actor = nn.Sequential(nn.Linear(obs_dim, 16), nn.ReLU(), nn.Linear(16, act_dim))
        self.critic = nn.Sequential(nn.Linear(obs_dim + act_dim, 16), nn.ReLU(), nn.Linear(16, 1))
        self.log_alpha = torch.zeros(1, requires_grad=True)
        self.actor_optimizer = torch.optim.Adam(self.actor.parameters(), lr=3e-4)
        self.critic_optimizer = torch.optim.Adam(self.critic.parameters(), lr=3e-4)
        self.alpha_optimizer = torch.optim.Adam([self.log_alpha], lr=3e-4)

    def train(self, gradient_steps=3):
        for step in range(gradient_steps):
            obs, target_q = torch.randn(8, 3), torch.randn(8, 1)
            actions = torch.tanh(self.actor(obs))
            log_prob = -(actions ** 2).sum(-1, keepdim=True)

            alpha_loss = -(self.log_alpha * (log_prob + 1.0).detach()).mean()
            self.alpha_optimizer.zero_grad()
            alpha_loss.backward()
            self.alpha_optimizer.step()
            alpha = self.log_alpha.exp().detach()

            q = self.critic(torch.cat([obs, actions.detach()], dim=1))
            critic_loss = F.mse_loss(q, target_q)
            self.critic_optimizer.zero_grad()
            critic_loss.backward()
            self.critic_optimizer.step()

            actor_loss = (alpha * log_prob - self.critic(torch.cat([obs, actions], dim=1))).mean()
            self.actor_optimizer.zero_grad()
            actor_loss.backward()
            self.actor_optimizer.step()
            print(step, alpha_loss.item(), critic_loss.item(), actor_loss.item())


torch.manual_seed(0)
Agent().train()
