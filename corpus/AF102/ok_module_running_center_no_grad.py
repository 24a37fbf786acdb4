# OK: the distillation loss keeps a running centre of the teacher's outputs, but updates it under
# torch.no_grad(): the centre is a plain tensor, with no graph to carry into the next batch.
import torch
import torch.nn as nn

torch.manual_seed(0)


class CentredDistillLoss(nn.Module):
    def __init__(self, width, momentum=0.8):
        super().__init__()
        self.momentum = momentum
        self.register_buffer("running_centre", torch.zeros(1, width))

    def forward(self, student_out, teacher_out):
        target = torch.softmax(teacher_out - self.running_centre, dim=-1)
        loss = -(target * torch.log_softmax(student_out, dim=-1)).sum(-1).mean()
        with torch.no_grad():
            batch_centre = teacher_out.mean(0, keepdim=True)
            self.running_centre = self.momentum * self.running_centre + (1 - self.momentum) * batch_centre
        return loss


student = nn.Linear(6, 5)
teacher = nn.Linear(6, 5)
criterion = CentredDistillLoss(5)
optimizer = torch.optim.SGD(list(student.parameters()) + list(teacher.parameters()), lr=0.05)
for step in range(3):
    views = torch.randn(8, 6)
    loss = criterion(student(views), teacher(views))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
