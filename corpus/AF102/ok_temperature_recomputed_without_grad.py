# ok: the same agent starts from a detached temperature and refreshes it under torch.no_grad(), so the cached value holds no graph and each loss uses it as a constant.
import torch
import torch.nn as nn

torch.manual_seed(0)


class EntropyAgent:
    def __init__(self, obs=3, actions=2):
        self.policy = nn.Linear(obs, actions)
        self.value = nn.Linear(obs, actions)
        self.log_temp = torch.zeros(1, requires_grad=True)
        self.temp = self.log_temp.exp().detach()
        self.policy_opt = torch.optim.Adam(self.policy.parameters(), lr=1e-3)
        self.value_opt = torch.optim.Adam(self.value.parameters(), lr=1e-3)
        self.temp_opt = torch.optim.Adam([self.log_temp], lr=1e-3)

    def update(self, obs):
        log_probs = torch.log_softmax(self.policy(obs), -1)
        value_loss = (self.value(obs) - self.temp * log_probs.detach()).pow(2).mean()
        self.value_opt.zero_grad()
        value_loss.backward()
        self.value_opt.step()
        policy_loss = (self.temp * log_probs).mean()
        self.policy_opt.zero_grad()
        policy_loss.backward()
        self.policy_opt.step()
        temp_loss = -(self.log_temp * (log_probs.detach().mean() + 1.0))
        self.temp_opt.zero_grad()
        temp_loss.backward()
        self.temp_opt.step()
        with torch.no_grad():
            self.temp = self.log_temp.exp()


agent = EntropyAgent()
for _ in range(3):
    agent.update(torch.randn(6, 3))
