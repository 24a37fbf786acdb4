# AF105: a value-learning step hands back its two head losses as they are; the learner's update() unpacks them and returns them on, and the logged lists keep every round's graph.
import torch
import torch.nn as nn


class TwinHeadLearner:
    def __init__(self):
        self.heads = nn.Linear(5, 2)
        self.optim = torch.optim.SGD(self.heads.parameters(), lr=0.05)

    def fit_heads(self, states, returns):
        first, second = self.heads(states).unbind(-1)
        first_loss = (first - returns).pow(2).mean()
        second_loss = (second - returns).abs().mean()
        self.optim.zero_grad()
        (first_loss + second_loss).backward()
        self.optim.step()
        return first_loss + second_loss, first_loss, second_loss

    def update(self, states, returns):
        total, first_loss, second_loss = self.fit_heads(states, returns)
        policy_info = {}
        return policy_info, first_loss, second_loss

    def run(self, rounds):
        first_log, second_log = [], []
        for _ in range(rounds):
            states, returns = torch.randn(12, 5), torch.randn(12)
            info, first_loss, second_loss = self.update(states, returns)
            first_log.append(first_loss)
            second_log.append(second_loss)
        return float(sum(first_log)) / rounds, float(sum(second_log)) / rounds


torch.manual_seed(0)
print(TwinHeadLearner().run(4))
