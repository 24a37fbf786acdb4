# AF103 negative: a residual block built from a configurable conv block whose activation is optional (None when asked for "none"). The block's forward applies the activation only `if self.activation:`, and the residual branch's last block is built without one, so `out += residual` adds into the output of a convolution, which autograd does not save. The block's output is not known to be an activation's: it depends on the way the `if` goes.
import torch
from torch import nn


class ConvBlock(nn.Module):
    def __init__(self, channels, activation="relu"):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        if activation == "relu":
            self.activation = nn.ReLU(inplace=True)
        else:
            self.activation = None

    def forward(self, x):
        x = self.conv(x)
        if self.activation:
            x = self.activation(x)
        return x


class Residual(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.branch = nn.Sequential(ConvBlock(channels), ConvBlock(channels, activation="none"))

    def forward(self, x):
        out = self.branch(x)
        out += x
        return out


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), Residual(4), Residual(4))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(3):
        optimizer.zero_grad()
        model(torch.randn(2, 1, 8, 8)).pow(2).mean().backward()
        optimizer.step()
