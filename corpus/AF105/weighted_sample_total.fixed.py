# AF105: loss weighted by batch size summed into `epoch_total` for a per-sample average.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
ds = TensorDataset(torch.randn(30, 7), torch.randint(0, 5, (30,)))
loader = DataLoader(ds, batch_size=8)
net = nn.Sequential(nn.Linear(7, 5))
opt = torch.optim.SGD(net.parameters(), lr=0.2)

for epoch in range(2):
    epoch_total, seen = 0.0, 0
    for xb, yb in loader:
        opt.zero_grad()
        loss = nn.functional.cross_entropy(net(xb), yb)
        loss.backward()
        opt.step()
        epoch_total += (loss * xb.size(0)).detach()
        seen += xb.size(0)
    print(epoch, epoch_total / seen)
