# AF104: train_step scales and back-propagates the loss, then calls self.apply_update(), which zeroes the gradients before scaler.step(): the step sees zeros.
import torch
import torch.nn as nn


class AmpTrainer:
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.scaler = torch.amp.GradScaler("cpu", enabled=False)

    def apply_update(self):
        self.scaler.step(self.optimizer)
        self.scaler.update()

    def train_step(self, x, y):
        with torch.autocast("cpu", enabled=False):
            loss = (self.model(x) - y).pow(2).mean()
        self.optimizer.zero_grad()
        self.scaler.scale(loss).backward()
        self.apply_update()
        return loss.item()

    def fit(self, batches):
        for x, y in batches:
            print(self.train_step(x, y))


torch.manual_seed(0)
AmpTrainer(nn.Linear(3, 3)).fit([(torch.randn(4, 3), torch.randn(4, 3)) for _ in range(3)])
