# A step method back-propagates its own loss, then fills a fresh dict one key at a time with Python
# numbers (float(), int(), .item()) and hands it back; the caller appends those numbers to its
# history lists. No entry of the dict is a tensor, so the history keeps no graph.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Trainer:
    def __init__(self):
        self.net = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3))
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)

    def step(self, x, y, update=True):
        logits = self.net(x)
        loss = nn.functional.cross_entropy(logits, y)
        if update:
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
        stats = {}
        stats["loss"] = float(loss)
        stats["hits"] = int((logits.argmax(1) == y).sum())
        stats["confidence"] = logits.softmax(1).max(1)[0].mean().item()
        return stats

    def fit(self, batches):
        history = {"loss": [], "hits": [], "confidence": []}
        for x, y in batches:
            stats = self.step(x, y, update=True)
            history["loss"].append(stats["loss"])
            history["hits"].append(stats["hits"])
            history["confidence"].append(stats["confidence"])
        return history


batches = [(torch.randn(8, 6), torch.randint(0, 3, (8,))) for _ in range(4)]
history = Trainer().fit(batches)
assert all(isinstance(v, (int, float)) for values in history.values() for v in values)
print({key: round(sum(values) / len(values), 3) for key, values in history.items()})
