# OK: a critic update fills a value table the call allocates, one time step per iteration; each step's values are back-propagated and stepped right there, the table is read afterwards only detached, and it dies when the call returns.
import torch
import torch.nn as nn


class Learner:
    def __init__(self):
        self.critic = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 3))
        self.policy = nn.Linear(4, 3)
        self.critic_opt = torch.optim.SGD(self.critic.parameters(), lr=0.05)
        self.policy_opt = torch.optim.SGD(self.policy.parameters(), lr=0.05)

    def fit_critic(self, obs, targets):
        values = torch.zeros(obs.size(0), obs.size(1), 3)
        for t in range(obs.size(1)):
            v_t = self.critic(obs[:, t])
            values[:, t] = v_t.view(obs.size(0), 3)
            loss = (v_t - targets[:, t]).pow(2).mean()
            self.critic_opt.zero_grad()
            loss.backward()
            self.critic_opt.step()
        return values

    def train(self, obs, targets):
        values = self.fit_critic(obs, targets)
        probs = self.policy(obs).softmax(-1)
        baseline = (probs * values).sum(-1).detach()
        loss = -(probs.log().sum(-1) * baseline).mean()
        self.policy_opt.zero_grad()
        loss.backward()
        self.policy_opt.step()


torch.manual_seed(0)
learner = Learner()
for update in range(3):
    learner.train(torch.randn(2, 6, 4), torch.randn(2, 6, 3))
print("ok")
