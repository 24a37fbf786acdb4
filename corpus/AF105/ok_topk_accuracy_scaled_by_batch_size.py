# ok: the top-k accuracy helper turns its count into a Python number with .item() and scales it by
# 100 / targets.size(0), an int; the meter adds up floats, and no graph is kept between batches.
import torch
import torch.nn as nn

torch.manual_seed(0)


class RunningAverage:
    def __init__(self):
        self.total = 0.0
        self.count = 0

    def update(self, value, n=1):
        self.total += value * n
        self.count += n

    @property
    def mean(self):
        return self.total / max(self.count, 1)


def topk_accuracy(scores, targets, k):
    batch = targets.size(0)
    _, best = scores.topk(k, 1, True, True)
    hits = best.eq(targets.view(-1, 1).expand_as(best)).view(-1).float().sum()
    return hits.item() * (100.0 / batch)


model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 5))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
criterion = nn.CrossEntropyLoss()
top1, top3 = RunningAverage(), RunningAverage()

for step in range(20):
    inputs = torch.randn(16, 10)
    labels = torch.randint(0, 5, (16,))
    scores = model(inputs)
    loss = criterion(scores, labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    top1.update(topk_accuracy(scores, labels, 1), inputs.size(0))
    top3.update(topk_accuracy(scores, labels, 3), inputs.size(0))

print(f"top1 {top1.mean:.1f}% top3 {top3.mean:.1f}%")
