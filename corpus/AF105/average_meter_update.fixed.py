# AF105: an AverageMeter whose update() does `self.sum += val * n` is fed the loss with its graph.
import torch
import torch.nn as nn

torch.manual_seed(0)


class AverageMeter:
    def __init__(self):
        self.sum = 0.0
        self.count = 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


regressor = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(regressor.parameters(), lr=0.01)
loss_meter = AverageMeter()
for it in range(5):
    x, y = torch.randn(20, 5), torch.randn(20, 1)
    loss = nn.functional.smooth_l1_loss(regressor(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    loss_meter.update(loss.detach(), x.size(0))
print(f"avg loss {float(loss_meter.avg):.4f}")
