# ok: a coupling layer hands one chunk() piece of its input to a block from another file; the block rebinds its argument to a batch-norm output before doubling it in place, so the in-place write never touches the piece (a view autograd protects).
import torch
import torch.nn as nn

from af103_helpers.scalers import NormThenScale

torch.manual_seed(0)


class Coupling(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.st_net = NormThenScale(channels // 2)

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
