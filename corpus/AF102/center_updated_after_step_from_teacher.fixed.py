# AF102: a DINO-style center is updated after backward() and the step from the teacher's output, which still holds the graph that backward() freed; the next iteration's loss reads the center, so its backward() walks into the freed graph.
import torch
import torch.nn as nn

torch.manual_seed(0)
student, teacher = nn.Linear(4, 4), nn.Linear(4, 4)
optimizer = torch.optim.SGD(list(student.parameters()) + list(teacher.parameters()), lr=0.1)
center = torch.zeros(1, 4)
for step in range(3):
    x = torch.randn(8, 4)
    s, t = student(x), teacher(x)
    center = center.detach()
    loss = ((s - (t - center)) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    center = 0.9 * center + 0.1 * t.mean(0, keepdim=True)
    print(step, round(loss.item(), 4))
