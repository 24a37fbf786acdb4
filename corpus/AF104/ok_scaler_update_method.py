# OK: apply_update() steps through the scaler and only then zeroes the gradients, ready for the next train_step().
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
        self.optimizer.zero_grad()

    def train_step(self, x, y):
        loss = (self.model(x) - y).pow(2).mean()
        self.scaler.scale(loss).backward()
        self.apply_update()
        return loss.item()

    def fit(self, batches):
        for x, y in batches:
            print(self.train_step(x, y))


torch.manual_seed(0)
AmpTrainer(nn.Linear(3, 3)).fit([(torch.randn(4, 3), torch.randn(4, 3)) for _ in range(3)])
