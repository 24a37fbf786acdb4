# AF105 negative: the trainer's step back-propagates and returns the loss as a Python number, so the epoch total holds no graph.
import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model, lr):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        self.criterion = nn.MSELoss()

    def train_step(self, features, target):
        self.optimizer.zero_grad()
        loss = self.criterion(self.model(features), target)
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def fit(self, loader, epochs):
        for epoch in range(epochs):
            running = 0.0
            for features, target in loader:
                running += self.train_step(features, target)
            print(f"epoch {epoch} mean loss {running / len(loader):.4f}")


torch.manual_seed(0)
trainer = Trainer(nn.Linear(4, 1), lr=0.05)
trainer.fit([(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(3)], epochs=2)
