# AF101: a loss method packs an encoder's outputs in a namedtuple record, and builds a second record
# for an imagined rollout from it without detaching; it hands back the encoder's loss and the
# rollout's loss as a tuple. Both reach the encoder's graph: back-propagating them one after the
# other walks it twice, and the second backward raises.
import collections

import torch
import torch.nn as nn

torch.manual_seed(0)

Latent = collections.namedtuple("Latent", ["mean", "sample"])


class World(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(3, 3)
        self.dynamics = nn.Linear(3, 3)


class Learner:
    def __init__(self):
        self.world = World()
        self.optimizer = torch.optim.SGD(self.world.parameters(), lr=0.1)

    def losses(self, obs):
        code = self.world.encoder(obs)
        posterior = Latent(code, code + torch.randn_like(code))
        model_loss = posterior.sample.pow(2).mean()
        start = Latent(posterior.mean, posterior.sample)
        imagined = self.world.dynamics(start.sample)
        rollout_loss = -imagined.mean()
        return model_loss, rollout_loss

    def update(self, obs):
        model_loss, rollout_loss = self.losses(obs)
        self.optimizer.zero_grad()
        (model_loss + rollout_loss).backward()
        self.optimizer.step()
        return model_loss.item() + rollout_loss.item()


learner = Learner()
for step in range(3):
    print(step, round(learner.update(torch.randn(4, 3)), 4))
