"""A list of per-sample replay losses where each iteration back-propagates its own entry plus the
previous one: the previous entry's graph was freed by the previous iteration's backward, so the
second iteration raises ``Trying to backward through the graph a second time``."""
import torch
import torch.nn as nn

model = nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)


def replay_step(batches, targets):
    opt.zero_grad()
    losses = [None] * len(batches)
    for k in range(len(batches)):
        losses[k] = (model(batches[k]) - targets[k]).pow(2).mean()
        smoothed = losses[k] + losses[k - 1] if k > 0 else losses[k]
        smoothed.backward()
    opt.step()


for step in range(3):
    xs = [torch.randn(3, 4) for _ in range(2)]
    ys = [torch.randn(3, 2) for _ in range(2)]
    replay_step(xs, ys)
