# Not AF106: the loss kept with retain_graph=True comes from a method that reads features another
# method stored on `self`; a third method back-propagates those features again in the same step.
import torch
import torch.nn as nn


class Stepper(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(4, 4)
        self.head = nn.Linear(4, 1)
        self.optimizer = torch.optim.SGD(self.parameters(), lr=0.1)

    def run_encoder(self, inputs):
        self.features = torch.tanh(self.encoder(inputs))

    def head_loss(self):
        return self.head(self.features).mean()

    def backward_head(self):
        loss = self.head_loss()
        loss.backward(retain_graph=True)

    def backward_energy(self):
        self.features.pow(2).mean().backward()

    def train_step(self, inputs):
        self.run_encoder(inputs)
        self.optimizer.zero_grad()
        self.backward_head()
        self.backward_energy()
        self.optimizer.step()


torch.manual_seed(14)
model = Stepper()
for _ in range(3):
    model.train_step(torch.randn(5, 4))
print("trained")
