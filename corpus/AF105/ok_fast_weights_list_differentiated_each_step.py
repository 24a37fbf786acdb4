# ok: MAML's inner loop keeps "fast" copies of the weights on each parameter; the list of them is rebuilt after every inner step and is what the next torch.autograd.grad(..., create_graph=True) differentiates against, so it is not a running total and must keep its graph.
import torch
import torch.nn as nn
import torch.nn.functional as F


class FastLinear(nn.Linear):
    def __init__(self, i, o):
        super().__init__(i, o)
        self.weight.fast = None
        self.bias.fast = None

    def forward(self, x):
        if self.weight.fast is not None and self.bias.fast is not None:
            return F.linear(x, self.weight.fast, self.bias.fast)
        return super().forward(x)


class MAML(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = FastLinear(4, 2)
        self.loss_fn = nn.CrossEntropyLoss()
        self.inner_steps = 2
        self.inner_lr = 0.1

    def forward(self, x):
        return self.fc(x)

    def adapt_and_predict(self, xs, ys, xq):
        fast_weights = list(self.parameters())
        for weight in self.parameters():
            weight.fast = None
        self.zero_grad()
        for task_step in range(self.inner_steps):
            scores = self.forward(xs)
            set_loss = self.loss_fn(scores, ys)
            grad = torch.autograd.grad(set_loss, fast_weights, create_graph=True)
            fast_weights = []
            for k, weight in enumerate(self.parameters()):
                if weight.fast is None:
                    weight.fast = weight - self.inner_lr * grad[k]
                else:
                    weight.fast = weight.fast - self.inner_lr * grad[k]
                fast_weights.append(weight.fast)
        return self.forward(xq)


model = MAML()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for episode in range(3):
    xs, ys = torch.randn(5, 4), torch.randint(0, 2, (5,))
    xq, yq = torch.randn(5, 4), torch.randint(0, 2, (5,))
    loss = model.loss_fn(model.adapt_and_predict(xs, ys, xq), yq)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("meta-trained", episode + 1, "episodes")
