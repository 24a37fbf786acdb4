# AF103: nn.Dropout(inplace=True) applied to softmax attention probabilities: the module form overwrites what softmax saved.
import torch
import torch.nn as nn


class TokenMixer(nn.Module):
    def __init__(self, dim: int, heads: int = 2, attn_drop: float = 0.1):
        super().__init__()
        self.heads = heads
        self.qk = nn.Linear(dim, 2 * dim)
        self.v = nn.Linear(dim, dim)
        self.attn_drop = nn.Dropout(attn_drop, inplace=True)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, N, C = x.shape
        q, k = self.qk(x).reshape(B, N, 2, self.heads, C // self.heads).permute(2, 0, 3, 1, 4).unbind(0)
        v = self.v(x).reshape(B, N, self.heads, -1).transpose(1, 2)
        attn = (q @ k.transpose(-2, -1)).softmax(dim=-1)
        attn = self.attn_drop(attn)
        out = (attn @ v).transpose(1, 2).reshape(B, N, C)
        return self.proj(out)


torch.manual_seed(0)
mixer = TokenMixer(8)
opt = torch.optim.AdamW(mixer.parameters(), lr=1e-3)
for _ in range(3):
    loss = mixer(torch.randn(2, 4, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
