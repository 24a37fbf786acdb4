# OK: gradients reset by hand (`p.grad = None` loop) before backward(), in a function with a `while` loop.
import torch
import torch.nn as nn


def train(model, steps=3):
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    done = 0
    while done < steps:
        x = torch.randn(4, 3)
        out = model(x)
        loss = out.pow(2).mean()
        for p in model.parameters():
            p.grad = None
        loss.backward()
        opt.step()
        done += 1
        print(done, loss.item())


torch.manual_seed(0)
train(nn.Linear(3, 2))
