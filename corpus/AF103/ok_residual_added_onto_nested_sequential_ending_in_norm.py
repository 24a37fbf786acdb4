# ok: the trunk's last layer is an inner nn.Sequential whose own last layer is batch norm (it saves its input, not its output), so adding the skip in place onto the trunk's output is safe; the ReLU(inplace=True) inside the inner block comes before the norm.
import torch
import torch.nn as nn


class TrunkUnit(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        inner = [nn.ReLU(inplace=True), nn.Conv2d(channels, channels, 1), nn.BatchNorm2d(channels)]
        self.trunk = nn.Sequential(
            nn.Conv2d(channels, channels, 3, padding=1, bias=False),
            nn.Sequential(*inner),
        )
        self.act = nn.ReLU()

    def forward(self, x):
        out = self.trunk(x)
        out += x
        return self.act(out)


torch.manual_seed(0)
net = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), TrunkUnit(4), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 2))
opt = torch.optim.SGD(net.parameters(), lr=0.05)
for _ in range(2):
    loss = nn.functional.cross_entropy(net(torch.randn(2, 3, 6, 6)), torch.tensor([1, 0]))
    opt.zero_grad()
    loss.backward()
    opt.step()
