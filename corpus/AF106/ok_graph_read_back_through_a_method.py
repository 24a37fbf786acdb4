# Not AF106: `encode()` keeps the features on `self` as it returns them; after the head's backward, the
# auxiliary loss comes from a method that reads those kept features, so it walks the same graph again.
# The two backward calls look like two forward passes, but one graph links them through the object.
import torch
import torch.nn as nn


class TwoLossModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(4, 4)
        self.head = nn.Linear(4, 1)
        self.optimizer = torch.optim.SGD(self.parameters(), lr=0.1)

    def encode(self, inputs):
        features = torch.tanh(self.encoder(inputs))
        self.kept = features
        return features

    def sparsity(self):
        return self.kept.abs().mean()

    def train_step(self, inputs):
        loss = self.head(self.encode(inputs)).mean()
        self.optimizer.zero_grad()
        loss.backward(retain_graph=True)
        self.sparsity().backward()
        self.optimizer.step()


torch.manual_seed(13)
model = TwoLossModel()
for _ in range(3):
    model.train_step(torch.randn(5, 4))
print("trained")
