# OK: a domain-adaptation epoch hands the per-position weights to a method of the model each
# batch (`model.weighted_gap(feats, weights)`), which hands them back as given (or a fresh
# uniform table on the first call). The epoch function receives the model as a parameter; every
# call in the file passes a `Reweighter`, so the method is that class's. The weights are
# re-balanced after the epoch from detached gaps: they never hold a graph, so nothing freed is
# carried from one batch to the next.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Reweighter(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 3)
        self.head = nn.Linear(3, 1)

    def forward(self, x):
        h = torch.relu(self.body(x))
        return self.head(h).squeeze(1), [h[:, :2], h[:, 1:]]

    def weighted_gap(self, feats, weights=None):
        width = feats[0].shape[1]
        if weights is None:
            table = torch.full((len(feats), width), 1.0 / width)
        else:
            table = weights
        total = torch.zeros(())
        for i, f in enumerate(feats):
            for j in range(width):
                total = total + table[i, j] * f[:, j].pow(2).mean()
        return total, table

    def rebalance(self, weights, gap_before, gap_now):
        grown = (gap_now.detach() > gap_before.detach()).float()
        weights = weights * (1.0 + 0.5 * grown)
        return weights / weights.sum(1, keepdim=True)


def run_epoch(model, optimizer, batches, weights=None):
    for x, y in batches:
        pred, feats = model(x)
        gap, weights = model.weighted_gap(feats, weights)
        loss = (pred - y).pow(2).mean() + 0.1 * gap
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return weights


model = Reweighter()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
data = [(torch.randn(8, 4), torch.randn(8)) for _ in range(3)]
weights = None
before = torch.ones(2, 2)
for epoch in range(3):
    weights = run_epoch(model, opt, data, weights)
    now = torch.rand(2, 2)
    weights = model.rebalance(weights, before, now)
    before = now
print("weights hold no graph:", not weights.requires_grad)
