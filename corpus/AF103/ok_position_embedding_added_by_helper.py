# OK: a helper adds position embeddings to its argument in place; the caller passes a fresh torch.cat output and rebinds it.
import torch
import torch.nn as nn


def add_pos_embed_(tokens, pos):
    tokens.add_(pos)
    return tokens


class TinyViT(nn.Module):
    def __init__(self, n_patches=4, dim=8):
        super().__init__()
        self.patch = nn.Linear(12, dim)
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos = nn.Parameter(torch.randn(1, n_patches + 1, dim) * 0.02)
        self.head = nn.Linear(dim, 2)

    def forward(self, patches):
        x = self.patch(patches)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1)
        x = add_pos_embed_(x, self.pos)
        return self.head(x[:, 0])


torch.manual_seed(0)
vit = TinyViT()
opt = torch.optim.Adam(vit.parameters(), lr=1e-3)
for _ in range(2):
    loss = nn.functional.cross_entropy(vit(torch.randn(3, 4, 12)), torch.tensor([0, 1, 1]))
    opt.zero_grad()
    loss.backward()
    opt.step()
