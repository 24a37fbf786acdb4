# AF103: `residual = h` keeps an alias, then h.relu_() changes it too; the skip connection silently adds the rectified value.
import torch
import torch.nn as nn


class PreNormBlock(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.ff = nn.Linear(width, width)

    def forward(self, x):
        h = self.norm(x)
        residual = h
        h.relu_()
        return self.ff(h) + residual


torch.manual_seed(0)
blocks = nn.Sequential(PreNormBlock(8), PreNormBlock(8))
opt = torch.optim.SGD(blocks.parameters(), lr=0.1)
for step in range(3):
    opt.zero_grad()
    loss = blocks(torch.randn(4, 8)).var()
    loss.backward()
    opt.step()
