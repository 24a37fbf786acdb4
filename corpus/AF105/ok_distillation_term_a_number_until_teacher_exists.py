"""Incremental learning: the distillation term is the number 0.0 until a teacher exists (the first
task) and a tensor after; the running total takes ``term.item()`` exactly when the task is not the
first one, so it only ever adds numbers. The rule stays silent."""
import torch
import torch.nn as nn


class Learner:
    def __init__(self):
        self.net = nn.Linear(4, 3)
        self.teacher = None
        self.task = 0
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)

    def run_task(self, steps):
        total_distill = 0.0
        for _ in range(steps):
            x, y = torch.randn(6, 4), torch.randn(6, 3)
            out = self.net(x)
            term = 0.0
            if self.teacher is not None:
                with torch.no_grad():
                    soft = self.teacher(x)
                term = (out - soft).pow(2).mean()
            loss = (out - y).pow(2).mean() + term
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            total_distill += term.item() if self.task != 0 else term
        self.teacher = nn.Linear(4, 3)
        self.task += 1
        return total_distill


learner = Learner()
print(learner.run_task(3), learner.run_task(3))
