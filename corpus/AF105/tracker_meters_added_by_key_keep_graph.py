# AF105 positive: a tracker's `update(d)` runs `self.meters[k] += v` for each entry, and the
# only meters it stores into its container keep what `__iadd__` is given as it is. Every
# step's loss, with the graph of the step that produced it, stays alive in the tracker until
# the loop ends. No fix: what is handed over is a dict.
from collections import OrderedDict

import torch
from torch import nn


class TensorMeter:
    def __init__(self):
        self.values = []

    def __iadd__(self, value):
        self.values.append(value)
        return self

    def mean(self):
        return sum(float(v) for v in self.values) / max(len(self.values), 1)


class Tracker:
    def __init__(self):
        self.meters = OrderedDict()

    def new_meter(self, name):
        meter = TensorMeter()
        self.meters[name] = meter

    def update(self, d):
        for k, v in d.items():
            if k not in self.meters:
                self.new_meter(k)
            self.meters[k] += v

    def summary(self):
        return ", ".join(f"{k}: {m.mean():.4f}" for k, m in self.meters.items())


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    tracker = Tracker()
    for _ in range(10):
        loss = model(torch.randn(8, 4)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        tracker.update(dict(loss=loss))
    kept = sum(v.grad_fn is not None for v in tracker.meters["loss"].values)
    print(f"{tracker.summary()}; graphs kept: {kept}")
