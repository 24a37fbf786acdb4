# AF102 negative: a module caches a table of sinusoids on self and grows it when a longer input arrives. The table is built by its own method from sizes and constants only (the input's length, dtype and device), so no call's graph reaches the next one. The module also calls self.parameters(), which makes every self.<method>() look like a forward pass unless the method's summary is read.
import math

import torch
from torch import nn


class SinusoidTable(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.width = width
        self.table = self.grow(torch.zeros(1, 16, width))

    def grow(self, x, table=None):
        if table is not None and table.size(0) >= x.size(1):
            if table.dtype != x.dtype:
                table = table.to(dtype=x.dtype)
            return table
        steps = torch.arange(x.size(1), dtype=torch.float32).unsqueeze(1)
        rates = torch.exp(torch.arange(0, self.width, 2).float() * -(math.log(10000.0) / self.width))
        table = torch.zeros(x.size(1), self.width)
        table[:, 0::2] = torch.sin(steps * rates)
        table[:, 1::2] = torch.cos(steps * rates)
        return table.to(device=x.device, dtype=x.dtype)

    def forward(self, x):
        self.table = self.grow(x, self.table)
        return x + self.table[: x.size(1)]


class Encoder(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.position = SinusoidTable(width)
        self.proj = nn.Linear(width, width)

    def freeze(self):
        for weight in self.parameters():
            weight.requires_grad = False

    def forward(self, x):
        return self.proj(self.position(x))


if __name__ == "__main__":
    torch.manual_seed(0)
    encoder = Encoder(8)
    optimizer = torch.optim.SGD(encoder.parameters(), lr=0.1)
    for length in (4, 20, 6):
        optimizer.zero_grad()
        encoder(torch.randn(2, length, 8)).pow(2).mean().backward()
        optimizer.step()
