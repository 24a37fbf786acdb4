# AF101: a training class keeps one container module (no forward of its own) holding a shared body,
# a policy head and a value head; its loss method hands back both heads' losses as a tuple, both
# computed from one run of the body. Back-propagating them one after the other walks the body's
# graph twice: the second backward raises.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Heads(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(3, 3)
        self.policy = nn.Linear(3, 2)
        self.value = nn.Linear(3, 1)


class Learner:
    def __init__(self):
        self.heads = Heads()
        self.optimizer = torch.optim.SGD(self.heads.parameters(), lr=0.1)

    def losses(self, obs):
        features = torch.tanh(self.heads.body(obs))
        policy_loss = -self.heads.policy(features).mean()
        value_loss = self.heads.value(features).pow(2).mean()
        return policy_loss, value_loss

    def update(self, obs):
        policy_loss, value_loss = self.losses(obs)
        self.optimizer.zero_grad()
        (policy_loss + value_loss).backward()
        self.optimizer.step()
        return policy_loss.item() + value_loss.item()


learner = Learner()
for step in range(3):
    print(step, round(learner.update(torch.randn(4, 3)), 4))
