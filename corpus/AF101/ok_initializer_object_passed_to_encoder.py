# OK: `fill` is an object of a lowercase project class that only sets the encoder's weights in its
# constructor; it holds no tensor with a graph. The inner encoder-only updates and the full update
# each back-propagate a loss of their own forward pass, so no backward meets a freed graph.
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


class Model(nn.Module):
    def __init__(self, encoder):
        super().__init__()
        self.encoder = encoder
        self.head = nn.Linear(3, 1)

    def score(self, x):
        return self.head(torch.tanh(self.encoder(x))).pow(2).mean()


def train():
    fill = small_uniform(0.05)
    model = Model(Encoder(fill))
    encoder_optimizer = torch.optim.SGD(model.encoder.parameters(), lr=0.1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(3):
        inner = 0
        while inner < 2:
            encoder_optimizer.zero_grad()
            inner_loss = model.score(torch.randn(6, 4))
            inner_loss.backward()
            encoder_optimizer.step()
            inner += 1
        optimizer.zero_grad()
        loss = model.score(torch.randn(6, 4))
        loss.backward()
        optimizer.step()
        print(epoch, inner_loss.item(), loss.item())


train()
