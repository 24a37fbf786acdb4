"""The same trainer, but ``forward`` keeps its statistics as tensors: the running sums add
``.sum()`` results without ``.item()``, so each statistic holds the graph of the batch it came
from. The epoch sums keep every batch's graph alive, though only the loss is back-propagated:
reported, and ``.detach()`` (each statistic is a tensor) is the fix."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Clusterer(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(5, 4)

    def forward(self, chunks):
        losses = []
        spread, peak = 0, 0
        for chunk in chunks:
            probs = F.softmax(self.proj(chunk), dim=1)
            losses.append(-probs.log().mean())
            spread += -(probs * probs.log()).sum()
            peak += probs.max(1)[0].sum()
        stats = (spread, peak)
        return losses, stats


class Trainer:
    def __init__(self):
        self.net = Clusterer()
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=0.01)

    def _run(self, chunks):
        losses, stats = self.net.forward(chunks)
        return losses, stats

    def step(self, chunks):
        losses, stats = self._run(chunks)
        loss = sum(losses)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item(), stats

    def epoch(self, data):
        loss_sum, spread_sum, peak_sum = 0, 0, 0
        for chunks in data:
            loss, (spread, peak) = self.step(chunks)
            loss_sum += loss
            spread_sum += spread
            peak_sum += peak
        return loss_sum, spread_sum, peak_sum


if __name__ == "__main__":
    data = [[torch.randn(3, 5) for _ in range(2)] for _ in range(3)]
    sums = Trainer().epoch(data)
    assert all(isinstance(v, torch.Tensor) for v in sums[1:]), sums
