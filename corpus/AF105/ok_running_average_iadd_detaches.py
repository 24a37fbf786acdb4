# AF105 negative: a running-average object is fed with `avg += loss`. Its `__iadd__` stores
# `loss.detach()`, so the object keeps the values but none of their autograd graphs: nothing
# is held across iterations, and `+=` on an instance of a project class is the call of that
# method, not the growth of a tensor total.
import torch
from torch import nn


class RunningAverage:
    def __init__(self):
        self.values = []

    def __iadd__(self, value):
        self.values.append(value.detach())
        return self

    def average(self):
        return torch.stack(self.values).mean().item()


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    avg = RunningAverage()
    for _ in range(10):
        loss = model(torch.randn(8, 4)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        avg += loss
    assert all(v.grad_fn is None for v in avg.values)
    print(f"average loss {avg.average():.4f}")
