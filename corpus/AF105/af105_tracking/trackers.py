"""Helper module for the AF105 cases (a folder without __init__.py): loss bookkeeping objects."""


class EpochLosses:
    def __init__(self):
        self.totals = {}
        self.count = 0

    def add(self, losses):
        for key in losses:
            self.totals[key] = self.totals.get(key, 0.0) + losses[key]
        self.count += 1


class EpochLossValues:
    def __init__(self):
        self.totals = {}
        self.count = 0

    def add(self, losses):
        for key in losses:
            self.totals[key] = self.totals.get(key, 0.0) + losses[key].item()
        self.count += 1


class Tracker:
    def __init__(self):
        self.epoch = EpochLosses()
        self.steps = 0


class ValueTracker:
    def __init__(self):
        self.epoch = EpochLossValues()
