# AF103: a coupling layer hands one chunk() piece of its input to a block from another file that doubles its argument in place; autograd refuses an in-place write to a view that chunk() returned.
import torch
import torch.nn as nn

from af103_helpers.scalers import ScaleInPlace

torch.manual_seed(0)


class Coupling(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.st_net = ScaleInPlace(channels // 2)

    def forward(self, x, log_det):
        x_id, x_change = x.chunk(2, dim=1)
        s, t = self.st_net(x_id).chunk(2, dim=1)
        log_det += s.reshape(s.size(0), -1).sum(-1)
        return torch.cat((x_id, x_change * s.exp() + t), dim=1), log_det


layer = Coupling(4)
x = torch.randn(2, 4, 6, 6, requires_grad=True)
out, log_det = layer(x, torch.zeros(2))
(out.sum() + log_det.sum()).backward()
print(tuple(x.grad.shape))
