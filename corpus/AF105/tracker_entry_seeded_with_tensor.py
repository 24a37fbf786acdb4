# AF105 positive: a tracker's `update(d)` runs `self.meters[k] += v`, and the class stores
# detaching meter objects into its container by key, but another method seeds an entry with
# `setdefault` and the caller seeds it with a tensor. For that key `+=` adds the loss into a
# plain tensor: the running total chains every step's graph onto the last. No fix: what is
# handed over is a dict.
import torch
from torch import nn


class DetachingMeter:
    def __init__(self):
        self.values = []

    def __iadd__(self, value):
        self.values.append(value.detach())
        return self


class Tracker:
    def __init__(self):
        self.meters = {}

    def seed(self, name, start):
        self.meters.setdefault(name, start)

    def update(self, d):
        for k, v in d.items():
            if k not in self.meters:
                self.meters[k] = DetachingMeter()
            self.meters[k] += v


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    tracker = Tracker()
    tracker.seed("loss", torch.zeros(()))
    for _ in range(10):
        loss = model(torch.randn(8, 4)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        tracker.update(dict(loss=loss))
    total = tracker.meters["loss"]
    print(f"total {float(total):.4f}; carries a graph: {total.grad_fn is not None}")
