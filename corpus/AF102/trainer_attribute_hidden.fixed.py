# AF102: a Trainer keeps `self.hidden` between calls of its step method; each call back-propagates.
import torch
import torch.nn as nn

torch.manual_seed(0)


class StreamTrainer:
    def __init__(self, n_features=6, width=10):
        self.encoder = nn.GRU(n_features, width)
        self.head = nn.Linear(width, 2)
        params = list(self.encoder.parameters()) + list(self.head.parameters())
        self.optimizer = torch.optim.Adam(params, lr=1e-3)
        self.hidden = torch.zeros(1, 4, width)

    def train_step(self, frames, labels):
        self.hidden = self.hidden.detach()
        outputs, self.hidden = self.encoder(frames, self.hidden)
        loss = nn.functional.cross_entropy(self.head(outputs[-1]), labels)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


trainer = StreamTrainer()
for batch_idx in range(3):
    frames = torch.randn(5, 4, 6)
    labels = torch.randint(0, 2, (4,))
    print(batch_idx, trainer.train_step(frames, labels))
