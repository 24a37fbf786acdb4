# AF104: train_step() zeroes the gradients on every micro-batch while the step it calls through self.optimizer_step() runs only every `accum` micro-batches.
import torch
import torch.nn as nn


class AccumulatingTrainer:
    def __init__(self, model, accum=2):
        self.model = model
        self.accum = accum
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def optimizer_step(self):
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()

    def train_step(self, index, x, y):
        self.optimizer.zero_grad()
        loss = nn.functional.smooth_l1_loss(self.model(x), y) / self.accum
        loss.backward()
        if (index + 1) % self.accum == 0:
            self.optimizer_step()
        return loss.item()

    def fit(self, batches):
        for index, (x, y) in enumerate(batches):
            print(index, self.train_step(index, x, y))


torch.manual_seed(0)
AccumulatingTrainer(nn.Linear(2, 2)).fit([(torch.randn(3, 2), torch.randn(3, 2)) for _ in range(4)])
