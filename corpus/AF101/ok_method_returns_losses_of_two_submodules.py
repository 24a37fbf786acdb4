# OK: a training class keeps one container module (no forward of its own) holding a policy head and
# a value head; its loss method hands back the policy's loss and the value head's loss on fresh
# inputs as a tuple. Each element is a forward pass of its own submodule, so back-propagating them
# one after the other walks two separate graphs.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Heads(nn.Module):
    def __init__(self):
        super().__init__()
        self.policy = nn.Linear(3, 2)
        self.value = nn.Linear(3, 1)


class Learner:
    def __init__(self):
        self.heads = Heads()
        self.optimizer = torch.optim.SGD(self.heads.parameters(), lr=0.1)

    def losses(self, obs):
        policy_loss = -self.heads.policy(obs).mean()
        value_loss = self.heads.value(torch.randn(4, 3)).pow(2).mean()
        return policy_loss, value_loss

    def update(self, obs):
        policy_loss, value_loss = self.losses(obs)
        self.optimizer.zero_grad()
        policy_loss.backward()
        value_loss.backward()
        self.optimizer.step()
        return policy_loss.item() + value_loss.item()


learner = Learner()
for step in range(3):
    print(step, round(learner.update(torch.randn(4, 3)), 4))
