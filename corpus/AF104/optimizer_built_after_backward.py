# AF104 (no fix): a helper method back-propagates and only then builds the optimizer that steps. The
# loop calls it twice and nothing zeroes the gradients in between, so the second step applies the
# first call's gradients again. The zero_grad() cannot go before the backward pass: the optimizer
# does not exist yet there.
import torch
import torch.nn as nn


class Nudger:
    def __init__(self, inputs):
        self.inputs = inputs

    def _nudge(self, model):
        loss = model(self.inputs).sigmoid().mean()
        loss.backward()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        optimizer.step()
        return model.weight.grad.clone()

    def run(self, model, times):
        grads = []
        for _ in range(times):
            grads.append(self._nudge(model))
        return grads


torch.manual_seed(11)
net = nn.Linear(4, 2)
batch = torch.randn(3, 4)
grads = Nudger(batch).run(net, 2)
# The second gradient holds the first one as well: it is not this step's gradient alone.
single = torch.autograd.grad(net(batch).sigmoid().mean(), net.weight)[0]
print("accumulated:", not torch.allclose(grads[1], single))
