# AF106 stays silent: two losses of one forward pass are AF101's (one backward of the sum).
# autofix-test: select=AF101,AF106
import torch
from torch import nn

torch.manual_seed(12)
backbone = nn.Sequential(nn.Linear(9, 18), nn.ReLU())
cls_head = nn.Linear(18, 3)
reg_head = nn.Linear(18, 1)
params = [*backbone.parameters(), *cls_head.parameters(), *reg_head.parameters()]
optimizer = torch.optim.SGD(params, lr=0.05)
for step in range(3):
    x = torch.randn(10, 9)
    features = backbone(x)
    loss_cls = nn.functional.cross_entropy(cls_head(features), torch.randint(0, 3, (10,)))
    loss_reg = nn.functional.mse_loss(reg_head(features), torch.randn(10, 1))
    optimizer.zero_grad()
    (loss_cls + loss_reg).backward()
    optimizer.step()
