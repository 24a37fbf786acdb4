# ok: the rows bumped in place come from an embedding lookup, and each round only adds them to the running sum; neither the embedding nor the addition saves the rows, so backward is unaffected.
import torch
import torch.nn as nn


class PositionRefiner(nn.Module):
    def __init__(self, positions=5, width=4, rounds=3):
        super().__init__()
        self.table = nn.Embedding(positions, width)
        self.rounds = rounds

    def forward(self, x, index):
        rows = self.table(index)
        total = x
        for i in range(self.rounds):
            total = total + rows
            rows[i] = rows[i] + 1
        return total.sum()


if __name__ == "__main__":
    torch.manual_seed(0)
    model = PositionRefiner()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    index = torch.arange(5)
    for step in range(3):
        optimizer.zero_grad()
        loss = model(torch.randn(5, 4), index)
        loss.backward()
        optimizer.step()
        print(step, loss.item())
