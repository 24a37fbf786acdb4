# A domain-adaptation epoch hands the per-position weights to a method of the model each batch
# (`model.weighted_gap(feats, weights)`); the method nudges them by the batch's features before
# handing them back, so the weights hold that batch's graph. The epoch function receives the
# model as a parameter; every call in the file passes a `Reweighter`. The next batch's loss
# reads the weights, so its backward walks back into the previous batches' forwards, which an
# earlier backward freed: "Trying to backward through the graph a second time".
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
        table = table + 0.01 * torch.stack([f.mean(0) for f in feats])
        return total, table


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
for epoch in range(3):
    weights = run_epoch(model, opt, data, weights)
print("done")
