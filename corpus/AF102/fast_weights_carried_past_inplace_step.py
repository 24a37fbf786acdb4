# AF102 (no fix): the fast weights are carried from one inner step to the next with create_graph=True, but the loop also runs the meta-optimizer's in-place step: the next step back-propagates through fast weights whose graph saved the weights that step rewrote, and fails ("modified by an inplace operation").
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def predict(x, weights):
    return F.linear(torch.tanh(F.linear(x, weights[0], weights[1])), weights[2], weights[3])


net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
meta_opt = torch.optim.SGD(net.parameters(), lr=1e-2)
fast = list(net.parameters())
for inner_step in range(3):
    support_x, support_y = torch.randn(8, 4), torch.randn(8, 2)
    loss = F.mse_loss(predict(support_x, fast), support_y)
    grads = torch.autograd.grad(loss, fast, create_graph=True)
    fast = [w - 0.1 * g for w, g in zip(fast, grads)]
    query_loss = F.mse_loss(predict(torch.randn(8, 4), fast), torch.randn(8, 2))
    meta_opt.zero_grad()
    query_loss.backward(retain_graph=True)
    meta_opt.step()
    print(inner_step, round(query_loss.item(), 4))
