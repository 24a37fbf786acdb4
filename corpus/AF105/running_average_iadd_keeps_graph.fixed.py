# AF105 positive: a running-average object is fed with `avg += loss`, and its `__iadd__` stores
# the loss as it is. Every step's loss keeps its autograd graph (the activations saved for the
# backward that already ran) alive inside the object until the loop ends; nothing
# back-propagates through them. The fix detaches what is added.
import torch
from torch import nn


class RunningAverage:
    def __init__(self):
        self.values = []

    def __iadd__(self, value):
        self.values.append(value)
        return self

    def average(self):
        return float(sum(float(v) for v in self.values) / len(self.values))


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
        avg += loss.detach()
    kept = sum(v.grad_fn is not None for v in avg.values)
    print(f"average loss {avg.average():.4f}; graphs kept: {kept}")
