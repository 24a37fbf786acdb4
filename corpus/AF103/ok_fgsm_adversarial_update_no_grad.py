# OK: FGSM adversarial training — the perturbed input is updated in place under torch.no_grad(), its .grad reset with zero_().
import torch
import torch.nn as nn
import torch.nn.functional as F


def fgsm(model, x, y, eps=0.03, steps=2):
    x_adv = x.clone().requires_grad_(True)
    for _ in range(steps):
        loss = F.cross_entropy(model(x_adv), y)
        loss.backward()
        with torch.no_grad():
            x_adv += eps * x_adv.grad.sign()
            x_adv.clamp_(x - eps, x + eps)
        x_adv.grad.zero_()
    return x_adv.detach()


torch.manual_seed(0)
model = nn.Sequential(nn.Flatten(), nn.Linear(12, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(2):
    x, y = torch.randn(4, 3, 2, 2), torch.randint(0, 3, (4,))
    x_adv = fgsm(model, x, y)
    opt.zero_grad()
    loss = F.cross_entropy(model(x_adv), y)
    loss.backward()
    opt.step()
