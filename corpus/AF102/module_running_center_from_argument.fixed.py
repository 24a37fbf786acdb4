# AF102: a self-distillation loss keeps a running centre of the teacher's outputs on the module and
# updates it in forward from its argument, outside torch.no_grad(); the teacher is trained too, so
# the centre holds the previous batch's teacher graph and the next backward() reaches it freed.
import torch
import torch.nn as nn

torch.manual_seed(0)


class CentredDistillLoss(nn.Module):
    def __init__(self, width, momentum=0.8):
        super().__init__()
        self.momentum = momentum
        self.register_buffer("running_centre", torch.zeros(1, width))

    def forward(self, student_out, teacher_out):
        self.running_centre = self.running_centre.detach()
        target = torch.softmax(teacher_out - self.running_centre, dim=-1)
        loss = -(target * torch.log_softmax(student_out, dim=-1)).sum(-1).mean()
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
print(loss.item())
