# ok: `outputs` is assigned by whichever branch the configured head selects, the chain has no else, and nothing binds `outputs` before the loop; a head no branch handles would fail with NameError on the first iteration, so no iteration reads an earlier one's `outputs`.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
head = "linear"  # choices: linear, shifted


def rescale(outputs, target):
    return outputs * 2, target * 2


def train(steps):
    for step in range(steps):
        x, y = torch.randn(8, 4), torch.randn(8, 1)
        optimizer.zero_grad()
        if head == "shifted":
            outputs = model(x + 1)
        elif head == "linear":
            outputs = model(x)
        outputs, y = rescale(outputs, y)
        loss = (outputs - y).pow(2).mean()
        loss.backward()
        optimizer.step()
        print(step, round(loss.item(), 4))


train(3)
