# OK: a MAML-style inner loop adapts fast weights with a differentiable optimizer whose step(loss) takes gradients with create_graph=True and returns new weights out of place; the meta-gradient must flow through every inner step, so the fast weights are carried on purpose and nothing rewrites the weights their graph saved.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class FunctionalSGD:
    def __init__(self, weights, lr):
        self.weights = list(weights)
        self.lr = lr

    def step(self, loss):
        grads = torch.autograd.grad(loss, self.weights, create_graph=True)
        self.weights = [w - self.lr * g for w, g in zip(self.weights, grads)]
        return self.weights


def predict(x, weights):
    return F.linear(x, weights[0], weights[1])


def adapt(net, support_x, support_y, steps, inner_opt=None):
    fast = list(net.parameters())
    for _ in range(steps):
        loss = F.mse_loss(predict(support_x, fast), support_y)
        if inner_opt is None:
            grads = torch.autograd.grad(loss, fast, create_graph=True)
            fast = [w - 0.1 * g for w, g in zip(fast, grads)]
        else:
            fast = inner_opt.step(loss)
    return fast


net = nn.Linear(4, 2)
meta_opt = torch.optim.Adam(net.parameters(), lr=1e-2)
for episode in range(3):
    support_x, support_y = torch.randn(8, 4), torch.randn(8, 2)
    query_x, query_y = torch.randn(8, 4), torch.randn(8, 2)
    inner_opt = FunctionalSGD(net.parameters(), lr=0.1) if episode % 2 else None
    fast = adapt(net, support_x, support_y, steps=3, inner_opt=inner_opt)
    meta_loss = F.mse_loss(predict(query_x, fast), query_y)
    meta_opt.zero_grad()
    meta_loss.backward()
    meta_opt.step()
    print(episode, round(meta_loss.item(), 4))
