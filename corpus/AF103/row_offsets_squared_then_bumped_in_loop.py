# AF103: a forward refines projected row offsets over a few rounds; each round squares the offsets (pow saves its input for backward) and then bumps one row with an indexed assignment, overwriting what pow saved.
import torch
import torch.nn as nn


class OffsetRefiner(nn.Module):
    def __init__(self, width=4, rounds=3):
        super().__init__()
        self.proj = nn.Linear(width, width)
        self.rounds = rounds

    def forward(self, x):
        offsets = self.proj(x)
        energy = 0.0
        for i in range(self.rounds):
            energy = energy + offsets.pow(2).sum()
            offsets[i] = offsets[i] + 1
        return energy


if __name__ == "__main__":
    torch.manual_seed(0)
    model = OffsetRefiner()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for step in range(3):
        optimizer.zero_grad()
        loss = model(torch.randn(5, 4))
        loss.backward()
        optimizer.step()
        print(step, loss.item())
