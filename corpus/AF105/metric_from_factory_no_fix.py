# AF105: a score from a factory-built function (its result type unknown) is summed with its graph.
import torch
import torch.nn as nn

torch.manual_seed(0)


def build_metric(name):
    if name == "l1":
        return lambda p, t: (p - t).abs().mean()
    return lambda p, t: (p - t).pow(2).mean()


metric = build_metric("l1")
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
score_total = 0
for step in range(6):
    x, y = torch.randn(12, 3), torch.randn(12, 1)
    pred = model(x)
    loss = nn.functional.mse_loss(pred, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    score_total += metric(pred, y)
print(score_total / 6)
