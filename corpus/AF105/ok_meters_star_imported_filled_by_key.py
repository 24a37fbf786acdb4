# AF105 negative (twin of meters_star_imported_filled_by_key): the meters made by key in the
# loop are `ScalarMeter`s (star-imported too), whose `update()` turns a tensor into a number
# first: nothing of any step's graph is kept (0 autograd nodes held).
import torch
import torch.nn as nn
import torch.nn.functional as F

from af105_helpers.meters import *


def graph_nodes(t):
    seen, stack = set(), [getattr(t, "grad_fn", None)]
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        stack.extend(f for f, _ in fn.next_functions)
    return len(seen)


torch.manual_seed(0)
student, teacher = nn.Linear(8, 4), nn.Linear(8, 4)
opt = torch.optim.SGD(student.parameters(), lr=0.1)
for epoch in range(2):
    loss_avg = {}
    for step in range(10):
        x, y = torch.randn(16, 8), torch.randint(0, 4, (16,))
        pred = student(x)
        losses = {}
        losses["kd_loss"] = F.mse_loss(pred, teacher(x).detach()) * 0.5
        losses["cls_loss"] = F.cross_entropy(pred, y)
        opt.zero_grad()
        sum(losses.values()).backward()
        opt.step()
        for key in losses:
            if key not in loss_avg:
                loss_avg[key] = ScalarMeter()
            else:
                loss_avg[key].update(losses[key])
    print(f"epoch {epoch}: autograd nodes held by the cls meter: {graph_nodes(loss_avg['cls_loss'].sum)}")
    loss_avg = {key: float(meter.avg) for key, meter in loss_avg.items()}
    print(loss_avg)
