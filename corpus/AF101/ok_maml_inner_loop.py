# OK: MAML-style meta step: inner-loop gradients with create_graph=True, outer losses back-propagated per task.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
weight = nn.Parameter(torch.randn(1, 4) * 0.1)
bias = nn.Parameter(torch.zeros(1))
meta_opt = torch.optim.Adam([weight, bias], lr=1e-2)
inner_lr = 0.1

for meta_step in range(3):
    meta_opt.zero_grad()
    out_a = F.linear(torch.randn(6, 4), weight, bias)
    task_losses = []
    for task in range(2):
        xs, ys = torch.randn(6, 4), torch.randn(6, 1)
        support = F.mse_loss(F.linear(xs, weight, bias), ys)
        gw, gb = torch.autograd.grad(support, (weight, bias), create_graph=True)
        fast_w, fast_b = weight - inner_lr * gw, bias - inner_lr * gb
        query = F.mse_loss(F.linear(xs, fast_w, fast_b), ys)
        task_losses.append(query + 0.0 * out_a.sum())
    for query_loss in task_losses:
        query_loss.backward(retain_graph=True)
    meta_opt.step()
    print(meta_step, [t.item() for t in task_losses])
