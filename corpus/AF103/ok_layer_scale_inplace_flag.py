# OK: timm-style LayerScale and activations offer in-place as an explicit opt-in flag (`x.mul_(g) if self.inplace else x * g`).
import torch
import torch.nn as nn


def hard_swish(x, inplace: bool = False):
    inner = torch.nn.functional.relu6(x + 3.0).div_(6.0)
    return x.mul_(inner) if inplace else x.mul(inner)


class LayerScale(nn.Module):
    def __init__(self, dim, init_values=1e-5, inplace=False):
        super().__init__()
        self.inplace = inplace
        self.gamma = nn.Parameter(init_values * torch.ones(dim))

    def forward(self, x):
        return x.mul_(self.gamma) if self.inplace else x * self.gamma


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.mlp = nn.Linear(dim, dim)
        self.ls = LayerScale(dim, inplace=False)

    def forward(self, x):
        return x + self.ls(hard_swish(self.mlp(self.norm(x))))


torch.manual_seed(0)
block = Block(8)
opt = torch.optim.AdamW(block.parameters(), lr=1e-3)
for _ in range(2):
    loss = block(torch.randn(3, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
