# ok: a policy built by a factory (either of two classes) samples episodes; the visited cells (an
# object of the project holding integer positions) are collected across iterations. Only the loss
# carries a graph, and it is back-propagated every iteration.
import torch
import torch.nn as nn


class Visits:
    def __init__(self, cells):
        self.cells = cells

    def extend(self, other):
        self.cells = torch.cat([self.cells, other.cells])


class Episodes:
    def __init__(self, logits, cells):
        self.logits = logits
        self.terminal = Visits(cells)


class GreedyPolicy(nn.Module):
    def __init__(self):
        super().__init__()
        self.score = nn.Linear(2, 4)

    def rollout(self, count):
        cells = torch.randint(0, 8, (count, 2))
        return Episodes(self.score(cells.float()), cells)

    def objective(self, episodes):
        return episodes.logits.logsumexp(dim=1).mean()


class TemperedPolicy(GreedyPolicy):
    def objective(self, episodes):
        return (episodes.logits / 2.0).logsumexp(dim=1).mean()


def make_policy(name):
    return TemperedPolicy() if name == "tempered" else GreedyPolicy()


torch.manual_seed(0)
policy = make_policy("greedy")
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
seen = Visits(torch.zeros(0, 2, dtype=torch.long))
for _ in range(4):
    episodes = policy.rollout(8)
    optimizer.zero_grad()
    loss = policy.objective(episodes)
    loss.backward()
    optimizer.step()
    seen.extend(episodes.terminal)
print(f"visited {seen.cells.shape[0]} cells")
