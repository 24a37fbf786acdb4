# AF101: the same loss back-propagated twice before one step (a duplicated line) in a trainer class. The fix applies the gradient once, as the author meant: the verifier compares it with the original's first backward() of each step and reports `repaired`.
# autofix-test: unsafe-fixes verdict=repaired
import torch
import torch.nn as nn


class Trainer:
    def __init__(self):
        torch.manual_seed(0)
        self.net = nn.Sequential(nn.Conv1d(2, 4, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 10, 2))
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=1e-3)
        self.loss_fn = nn.CrossEntropyLoss()

    def train_step(self, signals, labels):
        self.optimizer.zero_grad()
        output = self.net(signals)
        loss = self.loss_fn(output, labels)
        loss.backward()
        self.optimizer.step()
        return loss.item()


trainer = Trainer()
for i in range(3):
    print(i, trainer.train_step(torch.randn(5, 2, 10), torch.randint(0, 2, (5,))))
