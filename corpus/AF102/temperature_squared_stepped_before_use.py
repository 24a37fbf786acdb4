# AF102: the agent keeps its temperature as log_temp squared from the end of the previous update; this update steps log_temp first and then back-propagates the policy loss through that kept value, whose backward needs the log_temp the step has just rewritten in place.
import torch
import torch.nn as nn

torch.manual_seed(0)


class EntropyAgent:
    def __init__(self, obs=3, actions=2):
        self.policy = nn.Linear(obs, actions)
        self.log_temp = torch.zeros(1, requires_grad=True)
        self.temp = 0.2
        self.policy_opt = torch.optim.Adam(self.policy.parameters(), lr=1e-3)
        self.temp_opt = torch.optim.Adam([self.log_temp], lr=1e-3)

    def update(self, obs):
        action = torch.tanh(self.policy(obs))
        log_prob = -(action ** 2).sum(-1, keepdim=True)

        temp_loss = -(self.log_temp * (log_prob + 1.0).detach()).mean()
        self.temp_opt.zero_grad()
        temp_loss.backward()
        self.temp_opt.step()

        policy_loss = (self.temp * log_prob).mean()
        self.policy_opt.zero_grad()
        policy_loss.backward()
        self.policy_opt.step()
        self.temp = self.log_temp ** 2


agent = EntropyAgent()
for _ in range(4):
    agent.update(torch.randn(6, 3))
print(float(agent.temp))
