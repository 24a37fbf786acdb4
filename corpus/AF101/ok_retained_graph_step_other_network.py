# OK: retain_graph=True keeps the generator's graph while the discriminator's optimizer steps; that step leaves the generator's saved weights alone.
import torch
import torch.nn as nn

torch.manual_seed(0)
gen = nn.Linear(3, 4)
disc = nn.Linear(4, 1)
opt_g = torch.optim.SGD(gen.parameters(), lr=0.01)
opt_d = torch.optim.SGD(disc.parameters(), lr=0.01)
for it in range(3):
    fake = gen(torch.randn(6, 3))
    opt_d.zero_grad()
    d_loss = disc(fake).mean() - disc(torch.randn(6, 4)).mean()
    d_loss.backward(retain_graph=True)
    opt_d.step()
    opt_g.zero_grad()
    g_loss = -disc(fake).mean()
    g_loss.backward()
    opt_g.step()
    print(it, d_loss.item(), g_loss.item())
