# AF103: a row-by-row scan adds each convolved row into the next row in place (`feat[:, :, r:r + 1].add_(...)`); the convolution saved the previous row, a view of `feat`, so backward fails; reported without a fix.
import torch
import torch.nn as nn
import torch.nn.functional as F


class RowScan(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.mix = nn.Conv2d(channels, channels, (1, 3), padding=(0, 1), bias=False)

    def forward(self, x):
        feat = x.clone()
        for r in range(1, feat.shape[2]):
            feat[:, :, r:r + 1, :].add_(F.relu(self.mix(feat[:, :, r - 1:r, :])))
        return feat


torch.manual_seed(0)
model = RowScan(3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(2):
    images = torch.randn(2, 3, 5, 6)
    loss = model(images).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
