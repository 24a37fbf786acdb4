# AF105: each term of a loss dict goes into its own meter, whose update() keeps the tensor with its graph.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Meter:
    def __init__(self):
        self.val = 0.0
        self.sum = 0.0
        self.n = 0

    def update(self, val, n=1):
        self.val = val
        self.sum = self.sum + val * n
        self.n += n


encoder = nn.Linear(8, 4)
decoder = nn.Linear(4, 8)
opt = torch.optim.Adam(list(encoder.parameters()) + list(decoder.parameters()), lr=1e-3)
meters = {name: Meter() for name in ("recon", "sparsity", "total")}
for it in range(4):
    x = torch.randn(16, 8)
    code = encoder(x)
    recon = decoder(code)
    terms = {"recon": (recon - x).pow(2).mean(), "sparsity": code.abs().mean()}
    terms["total"] = terms["recon"] + 0.1 * terms["sparsity"]
    opt.zero_grad()
    terms["total"].backward()
    opt.step()
    for name, value in terms.items():
        meters[name].update(value, x.size(0))
print({k: float(m.sum / m.n) for k, m in meters.items()})
