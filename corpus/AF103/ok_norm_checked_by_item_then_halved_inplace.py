# OK: the projected rows are halved in place until their norm is small; `x.norm()` saves `x`, but only `.item()` and a comparison read its result, so that graph node is dropped at once and no backward ever checks what it saved.
import torch
import torch.nn as nn

torch.manual_seed(0)
proj = nn.Linear(16, 16)
optimizer = torch.optim.SGD(proj.parameters(), lr=0.01)


def shrink(x):
    x = proj(x)  # a linear layer keeps its input, not its output
    while x.norm().item() > 4:
        x /= 2
    if float(x.abs().max()) > 1 and (x * x).sum() > 2:
        x *= 0.5
    return x


for step in range(3):
    out = shrink(torch.rand(4, 16) * 10)
    loss = out.pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(step, round(loss.item(), 4))
