# OK: the fit() loop zeroes the gradients before calling self.train_step(), which back-propagates and steps.
import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)

    def train_step(self, inputs, targets):
        loss = nn.functional.mse_loss(self.model(inputs), targets)
        loss.backward()
        self.optimizer.step()
        return loss.detach()

    def fit(self, batches):
        for inputs, targets in batches:
            self.optimizer.zero_grad(set_to_none=True)
            loss = self.train_step(inputs, targets)
            print(float(loss))


torch.manual_seed(0)
Trainer(nn.Linear(4, 2)).fit([(torch.randn(6, 4), torch.randn(6, 2)) for _ in range(3)])
