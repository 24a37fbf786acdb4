# AF105: a Trainer appends each step's loss tensor to `self.loss_history` kept on the object.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Trainer:
    def __init__(self, model, lr=1e-2):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        self.loss_history = []

    def fit(self, batches):
        for x, y in batches:
            self.optimizer.zero_grad()
            loss = nn.functional.mse_loss(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            self.loss_history.append(loss)

    def summary(self):
        return torch.stack(self.loss_history).mean().item()


trainer = Trainer(nn.Linear(3, 2))
trainer.fit([(torch.randn(4, 3), torch.randn(4, 2)) for _ in range(5)])
print(trainer.summary())
