# AF104: trainer class with `self.optimizer` and an accumulation guard on `self.accum_steps`; zero_grad() every micro-batch.
import torch
import torch.nn as nn


class AccumTrainer:
    def __init__(self, model, accum_steps=2):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.accum_steps = accum_steps

    def run(self, batches):
        self.optimizer.zero_grad()
        for idx, (x, y) in enumerate(batches, start=1):
            loss = nn.functional.l1_loss(self.model(x), y) / self.accum_steps
            loss.backward()
            if idx % self.accum_steps == 0:
                self.optimizer.step()
                self.optimizer.zero_grad()
                print(idx, loss.item())


torch.manual_seed(0)
AccumTrainer(nn.Linear(2, 2)).run([(torch.randn(3, 2), torch.randn(3, 2)) for _ in range(4)])
