# The network object back-propagates each loss in its own update method and hands back loss.item(); the learner adds up those Python numbers, so the total keeps no graph.
import torch
import torch.nn as nn


class ValueNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))

    def forward(self, obs):
        return self.body(obs)

    def apply_loss(self, loss, opt):
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()


class QLearner:
    def __init__(self):
        self.policy = ValueNet()
        self.opt = torch.optim.SGD(self.policy.parameters(), lr=0.01)
        self.updates = 4

    def td_loss(self, obs, target):
        return (self.policy(obs).max(-1).values - target).pow(2).mean()

    def learn(self):
        running = 0.0
        for _ in range(self.updates):
            obs, target = torch.randn(10, 6), torch.randn(10)
            loss = self.td_loss(obs, target)
            running += self.policy.apply_loss(loss, self.opt)
        assert isinstance(running, float)
        return running / self.updates


torch.manual_seed(0)
print(f"mean td loss {QLearner().learn():.4f}")
