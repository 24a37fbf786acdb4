# ok: a forward clones its input before normalising it in place, so the caller's tensor is untouched.
import torch
import torch.nn as nn


class Standardize(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.proj = nn.Linear(width, 2)

    def forward(self, x):
        x = x.clone()
        x -= x.mean(dim=0, keepdim=True)
        x /= x.std(dim=0, keepdim=True) + 1e-5
        return self.proj(x)


torch.manual_seed(0)
model = Standardize(6)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(3):
    data = torch.randn(12, 6)
    loss = model(data).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
