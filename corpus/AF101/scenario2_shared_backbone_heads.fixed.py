# AF101: two heads share one backbone pass; the second backward() hits the freed graph.
# Seed article scenario 2: a multi-task model returns (logits, box) from one forward.
import torch
import torch.nn as nn
import torch.nn.functional as F


class TwoHeadNet(nn.Module):
    def __init__(self, in_dim=16, hidden=32, n_classes=4):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.cls_head = nn.Linear(hidden, n_classes)
        self.box_head = nn.Linear(hidden, 4)

    def forward(self, x):
        shared = self.backbone(x)
        return self.cls_head(shared), self.box_head(shared)


torch.manual_seed(0)
model = TwoHeadNet()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

for step in range(3):
    images = torch.randn(8, 16)
    labels = torch.randint(0, 4, (8,))
    boxes = torch.rand(8, 4)

    optimizer.zero_grad()
    logits, pred_boxes = model(images)
    cls_loss = F.cross_entropy(logits, labels)
    box_loss = F.smooth_l1_loss(pred_boxes, boxes)
    (cls_loss + box_loss).backward()
    optimizer.step()
    print(f"step {step}: cls={cls_loss.item():.4f} box={box_loss.item():.4f}")
