# AF101: loss terms come as a dict from a helper in another file of the project and are back-propagated one by one through the detector's shared graph.
import torch
import torch.nn as nn

from af101_helpers.multitask_terms import detection_terms


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, 12), nn.ReLU())
        self.cls_head = nn.Linear(12, 3)
        self.box_head = nn.Linear(12, 4)

    def forward(self, x):
        features = self.body(x)
        return self.cls_head(features), self.box_head(features)


torch.manual_seed(0)
detector = Detector()
optimizer = torch.optim.SGD(detector.parameters(), lr=0.05)
for it in range(3):
    x, labels, boxes = torch.randn(8, 6), torch.randint(0, 3, (8,)), torch.randn(8, 4)
    optimizer.zero_grad()
    terms = detection_terms(detector(x), labels, boxes)
    for name, term in terms.items():
        term.backward()
    optimizer.step()
    print(it, {k: round(v.item(), 4) for k, v in terms.items()})
