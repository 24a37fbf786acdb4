# AF103: torch.clamp_(scores, max=...) — the torch-namespace in-place function — on an exp output that exp's backward needs.
import torch as th
import torch.nn as nn


class PoissonHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.rate = nn.Linear(5, 1)

    def forward(self, x):
        lam = th.exp(self.rate(x))
        th.clamp_(lam, max=50.0)
        return lam


th.manual_seed(0)
head = PoissonHead()
opt = th.optim.SGD(head.parameters(), lr=0.01)
for k in range(3):
    x = th.randn(10, 5)
    counts = th.poisson(th.ones(10, 1) * 3)
    lam = head(x)
    loss = (lam - counts * lam.log()).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
