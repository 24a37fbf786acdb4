# AF103: `p_safe = p.clamp_(eps, 1 - eps)` clamps the sigmoid output in place; the fix keeps both names on the new value.
import torch
import torch.nn as nn

EPS = 1e-4


def bce(p, target):
    return -(target * p.log() + (1 - target) * (1 - p).log()).mean()


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(9, 1)

    def forward(self, x):
        p = self.fc(x).sigmoid()
        p_safe = p.clamp_(EPS, 1 - EPS)
        return p_safe


torch.manual_seed(0)
scorer = Scorer()
opt = torch.optim.SGD(scorer.parameters(), lr=0.2)
for _ in range(3):
    x = torch.randn(12, 9)
    t = torch.randint(0, 2, (12, 1)).float()
    loss = bce(scorer(x), t)
    opt.zero_grad()
    loss.backward()
    opt.step()
