# OK: multi-task losses already summed into one backward; each loss still logged.
import torch
import torch.nn as nn
import torch.nn.functional as F
from dataclasses import dataclass


@dataclass
class Weights:
    seg: float = 1.0
    depth: float = 0.3


torch.manual_seed(0)
shared = nn.Conv2d(3, 8, 3, padding=1)
seg_head, depth_head = nn.Conv2d(8, 4, 1), nn.Conv2d(8, 1, 1)
params = [*shared.parameters(), *seg_head.parameters(), *depth_head.parameters()]
opt = torch.optim.SGD(params, lr=0.01)
w = Weights()
for batch in range(3):
    img = torch.randn(2, 3, 8, 8)
    seg_gt, depth_gt = torch.randint(0, 4, (2, 8, 8)), torch.rand(2, 1, 8, 8)
    opt.zero_grad()
    feat = F.relu(shared(img))
    seg = F.cross_entropy(seg_head(feat), seg_gt)
    depth = F.l1_loss(depth_head(feat), depth_gt)
    total = w.seg * seg + w.depth * depth
    total.backward()
    opt.step()
    print(batch, seg.item(), depth.item())
