"""Running statistics for the training scripts next to this folder (a helper module of the project)."""


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
