# ok: the agent refreshes its temperature as exp(log_temp) right after the temperature's own step; the next update back-propagates through it once (the policy loss), and exp's backward reads only its own output, never the log_temp the step rewrote.
import torch
import torch.nn as nn

torch.manual_seed(0)


class EntropyAgent:
    def __init__(self, obs=3, actions=2):
        self.policy = nn.Linear(obs, actions)
        self.value = nn.Linear(obs + actions, 1)
        self.log_temp = torch.zeros(1, requires_grad=True)
        self.temp = 0.2
        self.policy_opt = torch.optim.Adam(self.policy.parameters(), lr=1e-3)
        self.value_opt = torch.optim.Adam(self.value.parameters(), lr=1e-3)
        self.temp_opt = torch.optim.Adam([self.log_temp], lr=1e-3)

    def update(self, obs, reward):
        action = torch.tanh(self.policy(obs))
        log_prob = -(action ** 2).sum(-1, keepdim=True)
        target = (reward - self.temp * log_prob).detach()
        value_loss = (self.value(torch.cat([obs, action.detach()], -1)) - target).pow(2).mean()
        self.value_opt.zero_grad()
        value_loss.backward()
        self.value_opt.step()

        policy_loss = (self.temp * log_prob - self.value(torch.cat([obs, action], -1))).mean()
        self.policy_opt.zero_grad()
        policy_loss.backward()
        self.policy_opt.step()

        temp_loss = -(self.log_temp * (log_prob + 1.0).detach()).mean()
        self.temp_opt.zero_grad()
        temp_loss.backward()
        self.temp_opt.step()
        self.temp = self.log_temp.exp()


agent = EntropyAgent()
for _ in range(4):
    agent.update(torch.randn(6, 3), torch.randn(6, 1))
print(float(agent.temp))
