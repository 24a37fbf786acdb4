# AF101: trainer method under autocast: contrastive and classification losses share `feats`; second backward crashes.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Learner:
    def __init__(self):
        torch.manual_seed(0)
        self.backbone = nn.Sequential(nn.Linear(6, 16), nn.ReLU())
        self.proj = nn.Linear(16, 8)
        self.head = nn.Linear(16, 2)
        modules = nn.ModuleList([self.backbone, self.proj, self.head])
        self.opt = torch.optim.SGD(modules.parameters(), lr=0.05)

    def step(self, view_a, view_b, y):
        self.opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=False):
            feats = self.backbone(torch.cat([view_a, view_b]))
            za, zb = F.normalize(self.proj(feats), dim=-1).chunk(2)
            contrastive = F.cross_entropy(za @ zb.t() / 0.1, torch.arange(za.shape[0]))
            supervised = F.cross_entropy(self.head(feats[: len(y)]), y)
        contrastive.backward()
        supervised.backward()
        self.opt.step()
        return contrastive.item(), supervised.item()


learner = Learner()
for _ in range(3):
    x = torch.randn(4, 6)
    print(learner.step(x + 0.1 * torch.randn_like(x), x, torch.randint(0, 2, (4,))))
