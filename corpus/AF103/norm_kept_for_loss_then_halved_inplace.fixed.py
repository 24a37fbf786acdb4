# AF103: the projected rows' norm is kept as a penalty term, then the rows are halved in place; backward() of the penalty needs the `x` that `norm` saved, which `/=` changed.
import torch
import torch.nn as nn

torch.manual_seed(0)
proj = nn.Linear(16, 16)
optimizer = torch.optim.SGD(proj.parameters(), lr=0.01)


def shrink(x):
    x = proj(x)
    size = x.norm()
    if size.item() > 4:
        x = x / 2
    return x, size


for step in range(3):
    out, size = shrink(torch.rand(4, 16) * 10)
    loss = out.pow(2).mean() + 0.01 * size
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(step, round(loss.item(), 4))
