# AF105 negative: a tracker's `update(d)` runs `self.meters[k] += v` for each entry. The
# container starts empty and the tracker only ever stores meter objects into it (one of two
# classes, chosen by whether the value is a tensor); both meters' `__iadd__` keep no graph
# (one stores `value.detach()` under no_grad, the other `float(value)`). Handing the tracker
# a dict of losses keeps nothing of their graphs.
from collections import OrderedDict

import torch
from torch import nn


class TensorMeter:
    def __init__(self):
        self.values = []

    def __iadd__(self, value):
        with torch.no_grad():
            self.values.append(value.detach().cpu())
        return self

    def mean(self):
        return torch.stack(self.values).mean().item() if self.values else 0.0


class NumberMeter:
    def __init__(self):
        self.total = 0.0
        self.count = 0

    def __iadd__(self, value):
        self.total += float(value)
        self.count += 1
        return self

    def mean(self):
        return self.total / max(self.count, 1)


class Tracker:
    def __init__(self):
        self.meters = OrderedDict()

    def new_meter(self, name, tensor):
        if tensor:
            meter = TensorMeter()
        else:
            meter = NumberMeter()
        self.meters[name] = meter

    def update(self, d):
        for k, v in d.items():
            if k not in self.meters:
                self.new_meter(k, isinstance(v, torch.Tensor))
            self.meters[k] += v

    def summary(self):
        return ", ".join(f"{k}: {m.mean():.4f}" for k, m in self.meters.items())


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    tracker = Tracker()
    for step in range(10):
        loss = model(torch.randn(8, 4)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        tracker.update(dict(loss=loss, step=step))
    assert all(v.grad_fn is None for v in tracker.meters["loss"].values)
    print(tracker.summary())
