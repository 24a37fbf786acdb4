# ok: the caller passes features of its own forward pass into the method, and back-propagates an auxiliary loss through the same features after it: the retained graph is walked again.
import torch
from torch import nn


class SharedEncoderLearner:
    def __init__(self):
        self.encoder = nn.Sequential(nn.Linear(5, 16), nn.Tanh())
        self.value_head = nn.Linear(16, 1)
        self.reconstruct = nn.Linear(16, 5)
        parameters = [*self.encoder.parameters(), *self.value_head.parameters(), *self.reconstruct.parameters()]
        self.optimizer = torch.optim.SGD(parameters, lr=0.01)

    def _value_backward(self, features, returns):
        value_loss = (self.value_head(features).squeeze(-1) - returns).pow(2).mean()
        value_loss.backward(retain_graph=True)

    def learn(self, rollouts):
        for observations, returns in rollouts:
            self.optimizer.zero_grad()
            features = self.encoder(observations)
            self._value_backward(features, returns)
            (self.reconstruct(features) - observations).pow(2).mean().backward()
            self.optimizer.step()


torch.manual_seed(0)
SharedEncoderLearner().learn([(torch.randn(8, 5), torch.randn(8)) for _ in range(3)])
