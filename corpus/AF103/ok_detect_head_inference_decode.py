# OK: a YOLO-style detection head decodes sigmoid outputs in place only in its inference branch (`if not self.training:`).
import torch
import torch.nn as nn


class DetectHead(nn.Module):
    def __init__(self, c_in=8, n_anchors=2, n_out=6, stride=8.0):
        super().__init__()
        self.na, self.no, self.stride = n_anchors, n_out, stride
        self.m = nn.Conv2d(c_in, n_anchors * n_out, 1)

    def forward(self, feat):
        bs, _, ny, nx = feat.shape
        p = self.m(feat).view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2)
        if not self.training:
            y = p.sigmoid()
            yv, xv = torch.meshgrid(torch.arange(ny), torch.arange(nx), indexing="ij")
            grid = torch.stack((xv, yv), 2).view(1, 1, ny, nx, 2).float()
            y[..., 0:2] = (y[..., 0:2] * 2 - 0.5 + grid) * self.stride
            y[..., 2:4] = (y[..., 2:4] * 2) ** 2 * self.stride
            return y.reshape(bs, -1, self.no)
        return p


torch.manual_seed(0)
backbone = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.BatchNorm2d(8), nn.SiLU(inplace=True))
head = DetectHead()
opt = torch.optim.SGD(list(backbone.parameters()) + list(head.parameters()), lr=0.01, momentum=0.9)
for step in range(2):
    pred = head(backbone(torch.randn(2, 3, 16, 16)))
    loss = (pred[..., 4].sigmoid() - 0.5).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
backbone.eval()
head.eval()
print(head(backbone(torch.randn(1, 3, 16, 16))).shape)
