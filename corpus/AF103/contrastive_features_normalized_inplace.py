# AF103: features are normalised in place with div_ after `feats @ W` saved them for the weight gradient.
import torch
import torch.nn as nn
import torch.nn.functional as F
from dataclasses import dataclass


@dataclass
class Config:
    in_dim: int = 20
    emb_dim: int = 8
    n_classes: int = 5
    tau: float = 0.5
    steps: int = 3


class Embedder(nn.Module):
    def __init__(self, cfg: Config):
        super().__init__()
        self.encoder = nn.Linear(cfg.in_dim, cfg.emb_dim)
        self.prototypes = nn.Parameter(torch.randn(cfg.n_classes, cfg.emb_dim))
        self.tau = cfg.tau

    def forward(self, x):
        feats = self.encoder(x)
        logits = feats @ self.prototypes.t()
        feats.div_(feats.norm(dim=1, keepdim=True))
        return logits, feats


def run(cfg: Config):
    torch.manual_seed(0)
    model = Embedder(cfg)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for _ in range(cfg.steps):
        x = torch.randn(10, cfg.in_dim)
        y = torch.randint(0, cfg.n_classes, (10,))
        logits, feats = model(x)
        loss = F.cross_entropy(logits, y) + (feats @ feats.t() / cfg.tau).logsumexp(1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    run(Config())
