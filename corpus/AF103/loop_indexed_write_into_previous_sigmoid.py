# AF103: forward bumps one column per round with an indexed write, then squashes the whole tensor with sigmoid; from the second round on, the write lands in the sigmoid output autograd saved in the round before.
import torch
import torch.nn as nn


class ColumnRefiner(nn.Module):
    def __init__(self, width=4, rounds=3):
        super().__init__()
        self.proj = nn.Linear(width, width)
        self.rounds = rounds

    def forward(self, x):
        gates = self.proj(x)
        for i in range(self.rounds):
            gates[:, i] = gates[:, i] + 1.0
            gates = torch.sigmoid(gates)
        return gates


if __name__ == "__main__":
    torch.manual_seed(0)
    model = ColumnRefiner()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(3):
        optimizer.zero_grad()
        loss = model(torch.randn(5, 4)).mean()
        loss.backward()
        optimizer.step()
        print(step, loss.item())
