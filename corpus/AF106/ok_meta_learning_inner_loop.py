# Not AF106: a MAML-style inner loop keeps the graph of each adapted step for the outer update.
import torch

torch.manual_seed(22)
weight = torch.randn(4, 1, requires_grad=True)
meta_optimizer = torch.optim.SGD([weight], lr=0.01)

for task in range(3):
    support_x, support_y = torch.randn(10, 4), torch.randn(10, 1)
    query_x, query_y = torch.randn(10, 4), torch.randn(10, 1)
    fast = weight
    for inner in range(2):
        inner_loss = (support_x @ fast - support_y).pow(2).mean()
        (grad,) = torch.autograd.grad(inner_loss, fast, create_graph=True, retain_graph=True)
        fast = fast - 0.1 * grad
    outer_loss = (query_x @ fast - query_y).pow(2).mean()
    meta_optimizer.zero_grad()
    outer_loss.backward()
    meta_optimizer.step()
