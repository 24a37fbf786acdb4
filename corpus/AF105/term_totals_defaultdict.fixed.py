# AF105: per-term totals in a defaultdict(float) add each term tensor, graph included.
from collections import defaultdict

import torch
import torch.nn as nn

torch.manual_seed(0)

backbone = nn.Linear(9, 6)
cls_head = nn.Linear(6, 3)
box_head = nn.Linear(6, 4)
params = [*backbone.parameters(), *cls_head.parameters(), *box_head.parameters()]
opt = torch.optim.SGD(params, lr=0.02)
totals = defaultdict(float)
for it in range(4):
    feats = backbone(torch.randn(12, 9))
    parts = {
        "cls": nn.functional.cross_entropy(cls_head(feats), torch.randint(0, 3, (12,))),
        "box": nn.functional.l1_loss(box_head(feats), torch.randn(12, 4)),
    }
    loss = parts["cls"] + parts["box"]
    opt.zero_grad()
    loss.backward()
    opt.step()
    for key, term in parts.items():
        totals[key] += term.detach()
print({k: round(float(v) / 4, 4) for k, v in totals.items()})
