# AF105 positive: a training loop keeps each step's loss in a small history object through its `record` method, which appends it to a list on the object. No method of the object hands the list back; it only prints a summary at the end. Every step's graph stays alive in the history until the loop ends.
import torch
from torch import nn


class LossHistory:
    def __init__(self):
        self.losses = []

    def record(self, loss):
        self.losses.append(loss)

    def report(self):
        print(f"{len(self.losses)} steps, last {float(self.losses[-1]):.4f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    history = LossHistory()
    for _ in range(10):
        loss = model(torch.randn(8, 4)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        history.record(loss)
    history.report()
