# AF105: a step method back-propagates its loss, then fills a fresh dict one key at a time with the
# loss and a margin computed from the same logits, both still tensors with their graph; the caller
# appends them to history lists that live across every batch, so each batch's graph stays alive.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Trainer:
    def __init__(self):
        self.net = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3))
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)

    def step(self, x, y):
        logits = self.net(x)
        loss = nn.functional.cross_entropy(logits, y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        stats = {}
        stats["loss"] = loss
        stats["margin"] = (logits.max(1)[0] - logits.mean(1)).mean()
        return stats

    def fit(self, batches):
        history = {"loss": [], "margin": []}
        for x, y in batches:
            stats = self.step(x, y)
            history["loss"].append(stats["loss"])
            history["margin"].append(stats["margin"])
        return history


batches = [(torch.randn(8, 6), torch.randint(0, 3, (8,))) for _ in range(4)]
history = Trainer().fit(batches)
print({key: round(float(sum(values)) / len(values), 3) for key, values in history.items()})
