# Not AF105: `fit` keeps what each epoch returns, and each epoch back-propagates every batch in a
# loop of its own. What an epoch hands back is computed after that loop from Python numbers
# (`.item()` totals, or a tuple of them when the model has several losses), so the per-epoch
# record keeps no graph. (Had the epoch kept graphs, the finding would be inside `_run_epoch`.)
import torch
import torch.nn as nn

torch.manual_seed(0)


class TwoHeadModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(5, 8)
        self.head_a = nn.Linear(8, 1)
        self.head_b = nn.Linear(8, 1)

    def losses(self, x, y):
        h = torch.relu(self.body(x))
        first = (self.head_a(h).squeeze(-1) - y).pow(2).mean()
        second = (self.head_b(h).squeeze(-1) + y).abs().mean()
        return first, second


class Runner:
    def __init__(self, model, epochs):
        self.model = model
        self.epochs = epochs
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        self.history = {}

    def _run_epoch(self, batches):
        per_term = []
        for x, y in batches:
            self.optimizer.zero_grad()
            terms = self.model.losses(x, y)
            loss = sum(terms)
            loss.backward()
            self.optimizer.step()
            per_term.append(tuple(t.item() for t in terms))
        summed = []
        for position in range(len(per_term[0])):
            summed.append(sum(row[position] for row in per_term))
        return tuple(summed)

    def fit(self, batches):
        for epoch in range(self.epochs):
            result = self._run_epoch(batches)
            self.history[epoch] = sum(result)
        return self.history


batches = [(torch.randn(6, 5), torch.randn(6)) for _ in range(3)]
print(Runner(TwoHeadModel(), epochs=3).fit(batches))
