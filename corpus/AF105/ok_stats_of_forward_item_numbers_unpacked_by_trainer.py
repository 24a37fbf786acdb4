"""A classifier's ``forward`` hands back its per-chunk losses and, beside them, summary
statistics it has already turned into Python numbers with ``.item()`` (each running sum starts
at ``0``). A trainer unpacks them through two of its own methods, the statistics in a nested
tuple, and sums the statistics over the epoch: numbers added to numbers, no graph kept. The
rule stays silent (``.detach()`` on a float would raise)."""
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
            spread += -(probs * probs.log()).sum().item()
            peak += probs.max(1)[0].sum().item()
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
    assert all(isinstance(v, float) for v in sums), sums
