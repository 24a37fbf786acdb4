# OK: a mean-teacher EMA updates the teacher's weights in place inside torch.no_grad(); the student trains normally.
import copy

import torch
import torch.nn as nn


class EMA:
    def __init__(self, model, decay=0.99):
        self.decay = decay
        self.shadow = copy.deepcopy(model)
        for p in self.shadow.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def update(self, model):
        for ema_p, p in zip(self.shadow.parameters(), model.parameters()):
            ema_p.mul_(self.decay).add_(p.detach(), alpha=1 - self.decay)


def train_step(student, teacher, opt, x):
    with torch.no_grad():
        target = teacher.shadow(x)
    loss = (student(x) - target).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    teacher.update(student)
    return loss.item()


torch.manual_seed(0)
student = nn.Sequential(nn.Linear(6, 6), nn.ReLU(), nn.Linear(6, 6))
teacher = EMA(student)
opt = torch.optim.Adam(student.parameters(), lr=1e-3)
for _ in range(3):
    train_step(student, teacher, opt, torch.randn(8, 6))
