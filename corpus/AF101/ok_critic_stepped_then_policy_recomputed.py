# OK: the policy loss runs the critic again after the critic's step(), so its graph saved the updated weights; nothing it saved is changed before its backward().
import torch
import torch.nn as nn


class Agent:
    def __init__(self):
        self.policy = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 2))
        self.critic = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 1))
        self.policy_optimizer = torch.optim.Adam(self.policy.parameters(), lr=1e-3)
        self.critic_optimizer = torch.optim.Adam(self.critic.parameters(), lr=1e-3)

    def update(self, states, actions, targets):
        critic_loss = (self.critic(torch.cat((states, actions), 1)) - targets).pow(2).mean()
        self.critic_optimizer.zero_grad()
        critic_loss.backward()
        self.critic_optimizer.step()

        sampled = torch.tanh(self.policy(states))
        policy_loss = -self.critic(torch.cat((states, sampled), 1)).mean()
        self.policy_optimizer.zero_grad()
        policy_loss.backward()
        self.policy_optimizer.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    agent = Agent()
    for _ in range(3):
        agent.update(torch.randn(8, 3), torch.randn(8, 2), torch.randn(8, 1))
    print("done")
