# OK: masked_fill_ on raw attention scores (a matmul output nobody saved) before softmax, and a padding mask built in place.
import math

import torch
import torch.nn as nn


class CausalAttention(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d)
        self.d = d

    def forward(self, x, lengths):
        B, T, _ = x.shape
        q, k, v = self.qkv(x).split(self.d, dim=-1)
        scores = torch.matmul(q, k.transpose(1, 2)) / math.sqrt(self.d)
        causal = torch.ones(T, T, dtype=torch.bool).triu_(1)
        scores.masked_fill_(causal, float("-inf"))
        pad = torch.arange(T)[None, :] >= lengths[:, None]
        scores.masked_fill_(pad[:, None, :], float("-inf"))
        return torch.softmax(scores, dim=-1) @ v


torch.manual_seed(0)
attn = CausalAttention(8)
opt = torch.optim.Adam(attn.parameters(), lr=1e-3)
for _ in range(2):
    out = attn(torch.randn(2, 5, 8), torch.tensor([5, 3]))
    loss = out.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
