# OK: gradients cleared right after step() (and once before the loop), model.zero_grad(set_to_none=True) spelling.
import torch
import torch.nn as nn


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 1)

    def forward(self, x):
        return self.lin(x)


torch.manual_seed(0)
reg = Regressor()
opt = torch.optim.Adam(reg.parameters(), lr=1e-2)
reg.zero_grad(set_to_none=True)
for it in range(3):
    x = torch.randn(10, 3)
    loss = (reg(x) - x.sum(1, keepdim=True)).pow(2).mean()
    loss.backward()
    opt.step()
    reg.zero_grad(set_to_none=True)
    print(it, loss.item())
