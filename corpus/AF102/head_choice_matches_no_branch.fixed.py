# AF102: `outputs` starts as a zero tensor that requires grad before the loop and the configured head matches no branch of the chain, so every iteration reads the `outputs` the previous one rescaled, whose graph that iteration's backward() freed.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
head = "conv"  # not one of the choices: linear, shifted


def rescale(outputs, target):
    return outputs * 2, target * 2


def train(steps):
    outputs = torch.zeros(8, 1, requires_grad=True)
    for step in range(steps):
        x, y = torch.randn(8, 4), torch.randn(8, 1)
        optimizer.zero_grad()
        outputs = outputs.detach()
        if head == "shifted":
            outputs = model(x + 1)
        elif head == "linear":
            outputs = model(x)
        outputs, y = rescale(outputs, y)
        loss = (outputs - y).pow(2).mean() + 0.01 * model(x).pow(2).mean()
        loss.backward()
        optimizer.step()
        print(step, round(loss.item(), 4))


train(3)
