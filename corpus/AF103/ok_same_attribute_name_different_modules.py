# OK: two classes both call their activation `self.act`; only the stem's is in-place, and the pre-activation block's plain ReLU may read its input.
import torch
import torch.nn as nn


class PreActConv(nn.Module):
    def __init__(self, c_in, c_out):
        super().__init__()
        self.act = nn.ReLU()
        self.conv = nn.Conv2d(c_in, c_out, 3, padding=1)
        self.bn = nn.BatchNorm2d(c_out)

    def forward(self, x):
        x = self.act(x)
        x = self.conv(x)
        return self.bn(x)


class Stem(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 6, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(6)
        self.act = nn.ReLU(inplace=True)

    def forward(self, img):
        return self.act(self.bn(self.conv(img)))


class Cell(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = Stem()
        self.left = PreActConv(6, 6)
        self.right = PreActConv(6, 6)

    def forward(self, img):
        s = self.stem(img)
        return self.left(s) + self.right(s)


torch.manual_seed(0)
cell = Cell()
opt = torch.optim.SGD(cell.parameters(), lr=0.05)
for _ in range(2):
    loss = cell(torch.randn(2, 3, 8, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
