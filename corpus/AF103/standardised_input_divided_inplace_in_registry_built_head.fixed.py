# AF103: a forecasting head standardises its input in place (`x /= spread` after `var` saved x). It is built by name from a registry, so no call of it can be linked to the class, and here it is fed an encoder's output, which requires grad: backward() needs the x that `var` saved, which `/=` changed.
import torch
import torch.nn as nn

torch.manual_seed(0)


class ScaledHead(nn.Module):
    def __init__(self, length, horizon):
        super().__init__()
        self.out = nn.Linear(length, horizon)

    def forward(self, x):
        centre = x.mean(1, keepdim=True).detach()
        x = x - centre
        spread = torch.sqrt(torch.var(x, dim=1, keepdim=True, unbiased=False) + 1e-5)
        x = x / spread
        y = self.out(x.transpose(1, 2)).transpose(1, 2)
        return y * spread + centre


HEADS = {"scaled": ScaledHead}


def build_head(name, **options):
    return HEADS[name](**options)


encoder = nn.Linear(3, 3)
head = build_head("scaled", length=12, horizon=4)
optimizer = torch.optim.Adam(list(encoder.parameters()) + list(head.parameters()), lr=1e-3)
for step in range(3):
    series = torch.randn(8, 12, 3)
    target = torch.randn(8, 4, 3)
    pred = head(encoder(series))
    loss = nn.functional.mse_loss(pred, target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(step, round(loss.item(), 4))
