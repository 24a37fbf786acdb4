# AF103: attention probabilities are zeroed at padding with masked_fill_ after softmax, whose backward needs them.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class SelfAttention(nn.Module):
    def __init__(self, d_model: int):
        super().__init__()
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)
        self.scale = 1.0 / math.sqrt(d_model)

    def forward(self, tokens, pad_mask):
        q, k, v = self.qkv(tokens).chunk(3, dim=-1)
        scores = q @ k.transpose(-2, -1) * self.scale
        attn = F.softmax(scores, dim=-1)
        attn = attn.masked_fill(pad_mask[:, None, :], 0.0)
        return self.out(attn @ v)


torch.manual_seed(0)
layer = SelfAttention(16)
optim = torch.optim.SGD(layer.parameters(), lr=0.05)
for epoch in range(2):
    for batch in range(2):
        tokens = torch.randn(4, 6, 16)
        pad_mask = torch.zeros(4, 6, dtype=torch.bool)
        pad_mask[:, 4:] = True
        loss = layer(tokens, pad_mask).pow(2).mean()
        optim.zero_grad()
        loss.backward()
        optim.step()
