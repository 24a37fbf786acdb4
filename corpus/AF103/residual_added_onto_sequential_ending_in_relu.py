# AF103: a residual unit adds its skip connection in place onto the output of an nn.Sequential that ends in ReLU(inplace=True); ReLU saved that output for backward.
import torch
import torch.nn as nn


class ResidualUnit(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.branch = nn.Sequential(
            nn.Conv2d(channels, channels, 3, padding=1, bias=False),
            nn.BatchNorm2d(channels),
            nn.ReLU(inplace=True),
        )

    def forward(self, x):
        out = self.branch(x)
        out += x
        return out


torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), ResidualUnit(8), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for _ in range(2):
    images, labels = torch.randn(4, 3, 8, 8), torch.tensor([0, 1, 1, 0])
    loss = nn.functional.cross_entropy(model(images), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
