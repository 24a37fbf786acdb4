# Not AF106: the network's forward keeps its hidden features on the module; after the task loss's
# backward, the loop (and a helper handed the network) back-propagates a penalty on those features,
# which walks the graph of the same forward pass again.
import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 4)
        self.head = nn.Linear(4, 1)

    def forward(self, inputs):
        hidden = torch.tanh(self.body(inputs))
        self.last_hidden = hidden
        return self.head(hidden)


def activation_penalty(network):
    return network.last_hidden.pow(2).mean()


torch.manual_seed(15)
net = Encoder()
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
for _ in range(3):
    loss = net(torch.randn(5, 4)).mean()
    optimizer.zero_grad()
    loss.backward(retain_graph=True)
    net.last_hidden.abs().mean().backward()
    optimizer.step()

for _ in range(3):
    loss = net(torch.randn(5, 4)).mean()
    optimizer.zero_grad()
    loss.backward(retain_graph=True)
    activation_penalty(net).backward()
    optimizer.step()
print("trained")
