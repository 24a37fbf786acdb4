# A value-learning step hands back its two head losses detached; the learner's update() unpacks them and returns them on with a placeholder, so the logged lists hold no graph.
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
        return (first_loss + second_loss).detach(), first_loss.detach(), second_loss.detach()

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
        assert all(t.grad_fn is None for t in first_log + second_log)
        return torch.stack(first_log).mean().item(), torch.stack(second_log).mean().item()


torch.manual_seed(0)
print(TwinHeadLearner().run(4))
