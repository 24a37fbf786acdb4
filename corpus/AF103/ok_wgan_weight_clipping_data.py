# OK: WGAN critic weight clipping with p.data.clamp_() and a generator trained on fake.detach() — .data writes are outside autograd.
import torch
import torch.nn as nn

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(True), nn.Linear(16, 2))
D = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2, inplace=True), nn.Linear(16, 1))
opt_g = torch.optim.RMSprop(G.parameters(), lr=5e-4)
opt_d = torch.optim.RMSprop(D.parameters(), lr=5e-4)
clip = 0.01

for it in range(3):
    real = torch.randn(8, 2) + 2
    z = torch.randn(8, 4)
    fake = G(z)
    loss_d = D(fake.detach()).mean() - D(real).mean()
    opt_d.zero_grad()
    loss_d.backward()
    opt_d.step()
    for p in D.parameters():
        p.data.clamp_(-clip, clip)

    loss_g = -D(fake).mean()
    opt_g.zero_grad()
    loss_g.backward()
    opt_g.step()
