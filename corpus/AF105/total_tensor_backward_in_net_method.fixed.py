# AF105: the network object back-propagates each loss in its own update method (self.policy.apply_loss(loss, opt)); the tensor total started from torch.zeros(()) keeps every step's graph until the final .item().
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


class QLearner:
    def __init__(self):
        self.policy = ValueNet()
        self.opt = torch.optim.SGD(self.policy.parameters(), lr=0.01)
        self.updates = 4

    def td_loss(self, obs, target):
        return (self.policy(obs).max(-1).values - target).pow(2).mean()

    def learn(self):
        running = torch.zeros(())
        for _ in range(self.updates):
            obs, target = torch.randn(10, 6), torch.randn(10)
            loss = self.td_loss(obs, target)
            self.policy.apply_loss(loss, self.opt)
            running += loss.detach()
        return (running / self.updates).item()


torch.manual_seed(0)
print(f"mean td loss {QLearner().learn():.4f}")
