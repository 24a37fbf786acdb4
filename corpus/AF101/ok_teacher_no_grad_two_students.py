# OK: distillation: the teacher runs under no_grad; two students each have their own forward and backward.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
teacher = nn.Linear(6, 3)
student_a, student_b = nn.Linear(6, 3), nn.Sequential(nn.Linear(6, 6), nn.ReLU(), nn.Linear(6, 3))
optimizer = torch.optim.SGD([*student_a.parameters(), *student_b.parameters()], lr=0.05)
T = 2.0
for epoch in range(3):
    x = torch.randn(9, 6)
    with torch.no_grad():
        soft = F.softmax(teacher(x) / T, dim=-1)
    optimizer.zero_grad()
    kd_a = F.kl_div(F.log_softmax(student_a(x) / T, -1), soft, reduction="batchmean")
    kd_a.backward()
    kd_b = F.kl_div(F.log_softmax(student_b(x) / T, -1), soft, reduction="batchmean")
    kd_b.backward()
    optimizer.step()
    print(epoch, kd_a.item(), kd_b.item())
