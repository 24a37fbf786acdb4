# Not AF106: a teacher's output computed once and kept on `self` is back-propagated by every step.
import torch
from torch import nn


class Distiller:
    def __init__(self, teacher, student, anchor_inputs):
        self.student = student
        self.optimizer = torch.optim.SGD(student.parameters(), lr=0.05)
        self.anchor = teacher(anchor_inputs)

    def train_step(self, x):
        loss = (self.student(x) - self.anchor).pow(2).mean()
        self.optimizer.zero_grad()
        loss.backward(retain_graph=True)
        self.optimizer.step()
        return loss.item()


torch.manual_seed(32)
teacher = nn.Linear(3, 2)
trainer = Distiller(teacher, nn.Linear(3, 2), torch.randn(4, 3))
for step in range(3):
    trainer.train_step(torch.randn(4, 3))
