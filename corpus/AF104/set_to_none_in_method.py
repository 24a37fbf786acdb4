# AF104: a trainer method clears gradients with zero_grad(set_to_none=True) after backward(): step() then has nothing to apply.
import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model, lr=1e-3):
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
        self.loss_fn = nn.SmoothL1Loss()

    def training_step(self, features, target):
        pred = self.model(features)
        loss = self.loss_fn(pred, target)
        loss.backward()
        self.optimizer.zero_grad(set_to_none=True)
        self.optimizer.step()
        return loss.item()


torch.manual_seed(0)
trainer = Trainer(nn.Sequential(nn.Linear(5, 5), nn.ReLU(), nn.Linear(5, 1)))
for step in range(3):
    print(step, trainer.training_step(torch.randn(7, 5), torch.randn(7, 1)))
