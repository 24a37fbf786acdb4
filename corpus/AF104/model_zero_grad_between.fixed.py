# AF104: `model.zero_grad()` between backward() and step() of the optimizer built from model.parameters().
import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3)
        self.fc = nn.Linear(4 * 6 * 6, 10)

    def forward(self, x):
        return self.fc(F.relu(self.conv(x)).flatten(1))


torch.manual_seed(0)
net = ConvNet()
sgd = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
batches = [(torch.randn(6, 1, 8, 8), torch.randint(0, 10, (6,))) for _ in range(3)]
for images, digits in batches:
    loss = F.cross_entropy(net(images), digits)
    net.zero_grad()
    loss.backward()
    sgd.step()
    print(loss.item())
