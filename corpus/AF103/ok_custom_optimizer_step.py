# OK: an Optimizer subclass and a manual SGD update write parameters in place, under @torch.no_grad() / with torch.no_grad().
import torch
import torch.nn as nn
from torch.optim import Optimizer


class SignSGD(Optimizer):
    def __init__(self, params, lr=0.01, momentum=0.9):
        super().__init__(params, dict(lr=lr, momentum=momentum))

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if "buf" not in state:
                    state["buf"] = torch.zeros_like(p)
                buf = state["buf"]
                buf.mul_(group["momentum"]).add_(p.grad)
                p.add_(buf.sign(), alpha=-group["lr"])


def manual_sgd(model, lr):
    with torch.no_grad():
        for p in model.parameters():
            p -= lr * p.grad
            p.grad.zero_()


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
opt = SignSGD(model.parameters())
for i in range(4):
    loss = model(torch.randn(5, 3)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    if i % 2:
        opt.step()
    else:
        manual_sgd(model, 0.01)
