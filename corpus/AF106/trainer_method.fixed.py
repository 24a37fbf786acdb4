# AF106: a Trainer's step back-propagates once per batch yet keeps every batch's graph.
import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(10, 24), nn.ReLU(), nn.Linear(24, 3))

    def forward(self, x):
        return self.body(x)


class Trainer:
    def __init__(self, model, lr=0.01):
        self.model = model
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.history = []

    def train_step(self, batch):
        inputs, labels = batch
        logits = self.model(inputs)
        loss = self.criterion(logits, labels)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.history.append(loss.item())

    def fit(self, batches, epochs):
        for _ in range(epochs):
            for batch in batches:
                self.train_step(batch)


torch.manual_seed(1)
data = [(torch.randn(12, 10), torch.randint(0, 3, (12,))) for _ in range(3)]
trainer = Trainer(Classifier())
trainer.fit(data, epochs=2)
print("last loss", trainer.history[-1])
