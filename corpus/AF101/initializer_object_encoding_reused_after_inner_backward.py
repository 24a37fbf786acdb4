# Reported: the encoding is computed once per epoch; the inner update back-propagates a loss of it,
# which frees its graph, and the outer loss back-propagates through the same encoding again.
# The initializer object handed to the encoder plays no part in that.
import torch
import torch.nn as nn

torch.manual_seed(0)


class small_uniform(object):
    def __init__(self, bound):
        self.bound = bound

    def __call__(self, weight):
        nn.init.uniform_(weight, -self.bound, self.bound)


class Encoder(nn.Module):
    def __init__(self, init):
        super().__init__()
        self.proj = nn.Linear(4, 3)
        for weight in self.parameters():
            init(weight)

    def forward(self, x):
        return self.proj(x)


def train():
    fill = small_uniform(0.05)
    encoder = Encoder(fill)
    head = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(list(encoder.parameters()) + list(head.parameters()), lr=0.1)
    for epoch in range(3):
        optimizer.zero_grad()
        code = torch.tanh(encoder(torch.randn(6, 4)))
        if epoch >= 0:
            inner_loss = code.pow(2).mean()
            inner_loss.backward()
        loss = head(code).pow(2).mean()
        loss.backward()
        optimizer.step()
        print(epoch, inner_loss.item(), loss.item())


train()
