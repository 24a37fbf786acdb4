# AF105: the criterion hands back a dict of loss terms; its "loss" entry is taken out, scaled and
# back-propagated, and every entry then goes into a meter kept in an OrderedDict of meters. The
# dict's entries hold the iteration's graph (the back-propagated one came from it), so the meters
# keep every iteration's graph alive.
from collections import OrderedDict

import torch
import torch.nn as nn

torch.manual_seed(0)


class RunningAverage:
    def __init__(self, label):
        self.label = label
        self.reset()

    def reset(self):
        self.last = 0
        self.total = 0
        self.seen = 0

    def update(self, value, n=1):
        self.last = value
        self.total += value * n
        self.seen += n


class ContrastiveCriterion(nn.Module):
    def forward(self, z1, z2):
        logits = z1 @ z2.t()
        target = torch.arange(z1.size(0))
        ce = nn.functional.cross_entropy(logits, target)
        spread = z1.pow(2).mean() + z2.pow(2).mean()
        return {"loss": ce + 0.01 * spread, "ce": ce, "spread": spread}


def run_epoch(encoder, criterion, optimizer, batches, accumulate):
    meters = OrderedDict([(name, RunningAverage(name)) for name in ("loss", "ce", "spread")])
    for step, (a, b) in enumerate(batches):
        terms = criterion(encoder(a), encoder(b))
        loss = terms["loss"]
        loss = loss / accumulate
        loss.backward()
        if (step + 1) % accumulate == 0:
            optimizer.step()
            optimizer.zero_grad()
        for name in terms:
            meters[name].update(terms[name], a.size(0))
    return meters


encoder = nn.Linear(6, 4)
optimizer = torch.optim.SGD(encoder.parameters(), lr=0.1)
batches = [(torch.randn(8, 6), torch.randn(8, 6)) for _ in range(4)]
meters = run_epoch(encoder, ContrastiveCriterion(), optimizer, batches, accumulate=2)
print({name: float(m.total / m.seen) for name, m in meters.items()})
