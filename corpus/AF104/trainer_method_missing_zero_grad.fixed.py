# AF104: a Trainer class whose fit() loop calls self.train_step(); train_step back-propagates and steps but nothing zeroes the gradients.
# autofix-test: unsafe-fixes
import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model):
        self.model = model
        self.loss_fn = nn.MSELoss()
        self.configure()

    def configure(self):
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.05)

    def train_step(self, batch):
        inputs, targets = batch
        loss = self.loss_fn(self.model(inputs), targets)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def fit(self, batches, epochs=2):
        for epoch in range(epochs):
            for batch in batches:
                value = self.train_step(batch)
            print(epoch, value)


torch.manual_seed(0)
data = [(torch.randn(5, 3), torch.randn(5, 1)) for _ in range(3)]
Trainer(nn.Linear(3, 1)).fit(data)
