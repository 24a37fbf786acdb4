# OK: GAN variant that back-propagates D and G losses before stepping both: D sees only fake.detach(), so no graph is shared.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
gen = nn.Sequential(nn.Linear(3, 12), nn.Tanh(), nn.Linear(12, 6))
disc = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 1))
opt_g = torch.optim.SGD(gen.parameters(), lr=0.01)
opt_d = torch.optim.SGD(disc.parameters(), lr=0.01)

for it in range(3):
    z = torch.randn(7, 3)
    real = torch.randn(7, 6)
    opt_g.zero_grad()
    opt_d.zero_grad()
    fake = gen(z)
    d_loss = F.softplus(disc(fake.detach())).mean() + F.softplus(-disc(real)).mean()
    d_loss.backward()
    g_loss = F.softplus(-disc(fake)).mean()
    disc.requires_grad_(False)
    g_loss.backward()
    disc.requires_grad_(True)
    opt_d.step()
    opt_g.step()
    print(it, d_loss.item(), g_loss.item())
