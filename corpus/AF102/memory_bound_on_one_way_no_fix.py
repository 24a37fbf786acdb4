# AF102: the memory carries each step's graph into the next step, whose backward() reaches the freed graph; it is bound before the loop only when warm-started (otherwise on the first step), so a detach at the start of the iteration could hit an unbound name: reported with no fix.
import torch
import torch.nn as nn


def train(warm_start, steps=4):
    torch.manual_seed(0)
    cell = nn.GRUCell(3, 4)
    optimizer = torch.optim.SGD(cell.parameters(), lr=0.1)
    if warm_start:
        memory = torch.zeros(1, 4)
    for step in range(steps):
        if step == 0 and not warm_start:
            memory = torch.zeros(1, 4)
        out = cell(torch.randn(1, 3), memory)
        memory = out
        loss = out.pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    train(False)
    print("done")
