"""Running statistics for the training scripts next to this folder (a helper module of the project)."""

from collections import defaultdict

import torch


class AverageMeter:
    """Keeps a running sum of whatever it is given: a tensor stays a tensor, graph and all."""

    def __init__(self):
        self.sum = 0.0
        self.count = 0
        self.avg = 0.0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


class ScalarMeter:
    """Converts tensors to Python numbers before adding them up."""

    def __init__(self):
        self.sum = 0.0
        self.count = 0

    def update(self, val, n=1):
        if hasattr(val, "item"):
            val = val.item()
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


class StatsLogger:
    """Named meters filled by keyword (``logger.update(loss=..., acc=...)``); values are passed on as they are."""

    def __init__(self):
        self.meters = defaultdict(AverageMeter)

    def update(self, **values):
        for name, value in values.items():
            self.meters[name].update(value)

    def summary(self):
        return {name: float(meter.avg) for name, meter in self.meters.items()}


class CheckedStatsLogger:
    """Named meters filled by keyword; each tensor becomes a Python number first."""

    def __init__(self):
        self.meters = defaultdict(ScalarMeter)

    def update(self, **values):
        for name, value in values.items():
            if isinstance(value, torch.Tensor):
                value = value.item()
            self.meters[name].update(value)

    def summary(self):
        return {name: meter.avg for name, meter in self.meters.items()}
