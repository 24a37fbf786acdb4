# AF103: F.dropout(..., inplace=True) as a statement on softmax attention weights, which softmax's backward needs.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim, p=0.2):
        super().__init__()
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)
        self.p = p

    def forward(self, x):
        weights = torch.softmax(self.q(x) @ self.k(x).transpose(1, 2), dim=-1)
        weights = F.dropout(weights, self.p, self.training)
        return weights @ self.v(x)


torch.manual_seed(0)
attn = Attention(8)
attn.train()
opt = torch.optim.Adam(attn.parameters())
for i in range(3):
    out = attn(torch.randn(2, 5, 8))
    loss = out.square().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
