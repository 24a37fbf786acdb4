# ok: the row-by-row scan builds a list of new rows and joins them with torch.cat, so nothing autograd saved is overwritten.
import torch
import torch.nn as nn
import torch.nn.functional as F


class RowScan(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.mix = nn.Conv2d(channels, channels, (1, 3), padding=(0, 1), bias=False)

    def forward(self, x):
        rows = [x[:, :, 0:1, :]]
        for r in range(1, x.shape[2]):
            rows.append(x[:, :, r:r + 1, :] + F.relu(self.mix(rows[-1])))
        return torch.cat(rows, dim=2)


torch.manual_seed(0)
model = RowScan(3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(2):
    images = torch.randn(2, 3, 5, 6)
    loss = model(images).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
