# AF101: both fields of the returned losses record are computed from one encoding of the batch; the value loss goes back through the encoder graph that the policy loss's backward() already freed.
from collections import namedtuple

import torch
import torch.nn as nn

Losses = namedtuple("Losses", ["policy", "value"])


class Learner:
    def __init__(self):
        self.encoder = nn.Linear(4, 8)
        self.policy_head = nn.Linear(8, 2)
        self.value_head = nn.Linear(8, 1)
        self.optimizer = torch.optim.Adam(
            [*self.encoder.parameters(), *self.policy_head.parameters(), *self.value_head.parameters()], lr=1e-3
        )

    def compute_loss(self, obs, returns):
        features = torch.relu(self.encoder(obs))
        return Losses(
            policy=-torch.log_softmax(self.policy_head(features), -1).mean(),
            value=(self.value_head(features) - returns).pow(2).mean(),
        )

    def train_step(self, obs, returns):
        losses = self.compute_loss(obs, returns)
        self.optimizer.zero_grad()
        losses.policy.backward()
        losses.value.backward()
        self.optimizer.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    learner = Learner()
    for _ in range(3):
        learner.train_step(torch.randn(8, 4), torch.randn(8, 1))
    print("done")
