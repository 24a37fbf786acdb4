# AF101: a helper returns two losses built from one forward; the caller back-propagates them separately.
import torch
import torch.nn as nn
import torch.nn.functional as F
from dataclasses import dataclass


@dataclass
class Config:
    steps: int = 3
    lr: float = 0.02
    batch: int = 8


def compute_losses(model, inputs, targets):
    logits = model(inputs)
    ce = F.cross_entropy(logits, targets)
    entropy = -(F.softmax(logits, -1) * F.log_softmax(logits, -1)).sum(-1).mean()
    return ce, 0.1 * entropy


def train(cfg: Config):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 3))
    opt = torch.optim.SGD(model.parameters(), lr=cfg.lr)
    for i in range(cfg.steps):
        x = torch.randn(cfg.batch, 5)
        y = torch.randint(0, 3, (cfg.batch,))
        opt.zero_grad()
        ce_loss, ent_loss = compute_losses(model, x, y)
        ce_loss.backward()
        ent_loss.backward()
        opt.step()
        print(i, ce_loss.item(), ent_loss.item())


train(Config())
