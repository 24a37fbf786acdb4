# AF103: an attention pooling model passes its softmax weights to a block of the same file whose forward sharpens its argument with pow_(); the softmax output, saved for backward, is overwritten.
import torch
import torch.nn as nn


class Sharpen(nn.Module):
    def __init__(self, power: float):
        super().__init__()
        self.power = power

    def forward(self, weights):
        weights.pow_(self.power)
        return weights / weights.sum(dim=-1, keepdim=True)


class AttentionPool(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.score = nn.Linear(dim, 1)
        self.sharpen = Sharpen(2.0)

    def forward(self, tokens):
        attn = torch.softmax(self.score(tokens).squeeze(-1), dim=-1)
        sharp = self.sharpen(attn)
        return (sharp.unsqueeze(-1) * tokens).sum(dim=1)


torch.manual_seed(0)
pool = AttentionPool(6)
opt = torch.optim.SGD(pool.parameters(), lr=0.1)
for _ in range(2):
    loss = pool(torch.randn(3, 5, 6)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
