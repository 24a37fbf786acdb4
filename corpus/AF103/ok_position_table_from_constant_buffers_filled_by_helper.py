# OK: a helper fills a sinusoid table in place over slices it also reads with `sin`/`cos`; every call of it in the file hands it positions and frequencies built from constant tensors, so nothing it computes requires grad and autograd saves nothing.
import math

import torch
import torch.nn as nn

torch.manual_seed(0)


class TimeEmbedding(nn.Module):
    def __init__(self, length, width):
        super().__init__()
        self.proj = nn.Linear(1, width)
        self.positions = torch.arange(length).unsqueeze(0)
        self.frequencies = torch.tensor([math.pow(10000.0, 2.0 * (i // 2) / width) for i in range(width)])

    def table(self, positions, frequencies):
        angles = positions.unsqueeze(-1) / frequencies
        angles[:, :, 0::2] = torch.sin(angles[:, :, 0::2])
        angles[:, :, 1::2] = torch.cos(angles[:, :, 1::2])
        return angles

    def forward(self, x):
        positions = self.positions.repeat(len(x), 1)
        return self.proj(x) + self.table(positions, self.frequencies)


model = TimeEmbedding(5, 8)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.randn(3, 5, 1)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(step, round(loss.item(), 4))
