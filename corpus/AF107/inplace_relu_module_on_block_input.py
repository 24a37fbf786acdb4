# AF107: a pre-activation block applies its nn.ReLU(inplace=True) to its own input, the caller's sigmoid output.
import torch
import torch.nn as nn


class PreActBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.act = nn.ReLU(inplace=True)
        self.conv = nn.Conv2d(c, c, 3, padding=1)

    def forward(self, x):
        out = self.act(x)
        return self.conv(out)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 4, 3, padding=1)
        self.block = PreActBlock(4)
        self.head = nn.Linear(4, 2)

    def forward(self, img):
        gated = torch.sigmoid(self.stem(img))
        return self.head(self.block(gated).mean(dim=(2, 3)))


torch.manual_seed(0)
net = Net()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for _ in range(2):
    loss = nn.functional.cross_entropy(net(torch.randn(2, 3, 8, 8)), torch.tensor([0, 1]))
    opt.zero_grad()
    loss.backward()
    opt.step()
