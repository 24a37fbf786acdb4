# AF103: the trunk of a residual unit is an nn.Sequential whose last layer is another nn.Sequential (normalisation then ReLU(inplace=True)); the skip is added in place onto the trunk's output, which that ReLU saved for backward. A second unit builds its inner tail from a list ending in Sigmoid and scales the gate in place.
import torch
import torch.nn as nn


class TrunkUnit(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.trunk = nn.Sequential(
            nn.Conv2d(channels, channels, 3, padding=1, bias=False),
            nn.Sequential(nn.BatchNorm2d(channels), nn.ReLU(inplace=True)),
        )

    def forward(self, x):
        res = x
        out = self.trunk(x)
        out += res
        return out


class GatedUnit(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        tail = [nn.Linear(width, width), nn.Sigmoid()]
        self.gate = nn.Sequential(nn.LayerNorm(width), nn.Sequential(*tail))

    def forward(self, h):
        g = self.gate(h)
        g *= 2.0
        return h * g


torch.manual_seed(0)
conv_net = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), TrunkUnit(4), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 2))
gated = nn.Sequential(GatedUnit(4), nn.Linear(4, 2))
opt = torch.optim.SGD(list(conv_net.parameters()) + list(gated.parameters()), lr=0.05)
for _ in range(2):
    images, labels = torch.randn(2, 3, 6, 6), torch.tensor([0, 1])
    loss = nn.functional.cross_entropy(conv_net(images), labels)
    loss = loss + nn.functional.cross_entropy(gated(torch.randn(2, 4)), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
