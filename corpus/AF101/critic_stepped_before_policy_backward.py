# AF101: all losses are computed up front; the critic's step() rewrites in place the weights that the policy loss's graph saved when it ran the critic on the sampled actions, so the policy backward() fails (`modified by an inplace operation`).
import torch
import torch.nn as nn


class Agent:
    def __init__(self):
        self.policy = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 2))
        self.critic = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 1))
        self.policy_optimizer = torch.optim.Adam(self.policy.parameters(), lr=1e-3)
        self.critic_optimizer = torch.optim.Adam(self.critic.parameters(), lr=1e-3)

    def update(self, states, actions, targets):
        sampled = torch.tanh(self.policy(states))
        critic_loss = (self.critic(torch.cat((states, actions), 1)) - targets).pow(2).mean()
        policy_loss = -self.critic(torch.cat((states, sampled), 1)).mean()

        self.critic_optimizer.zero_grad()
        critic_loss.backward()
        self.critic_optimizer.step()

        self.policy_optimizer.zero_grad()
        policy_loss.backward()
        self.policy_optimizer.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    agent = Agent()
    for _ in range(3):
        agent.update(torch.randn(8, 3), torch.randn(8, 2), torch.randn(8, 1))
    print("done")
