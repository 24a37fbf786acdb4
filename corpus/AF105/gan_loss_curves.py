# AF105: GAN training logs generator and discriminator losses into lists that keep both graphs alive.
import torch
import torch.nn as nn

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
D = nn.Sequential(nn.Linear(2, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=2e-4)
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4)
bce = nn.BCEWithLogitsLoss()

g_losses, d_losses = [], []
for step in range(4):
    real = torch.randn(16, 2) + 3
    fake = G(torch.randn(16, 4))

    opt_d.zero_grad()
    d_loss = bce(D(real), torch.ones(16, 1)) + bce(D(fake.detach()), torch.zeros(16, 1))
    d_loss.backward()
    opt_d.step()

    opt_g.zero_grad()
    g_loss = bce(D(fake), torch.ones(16, 1))
    g_loss.backward()
    opt_g.step()

    d_losses.append(d_loss)
    g_losses.append(g_loss)
print(max(d_losses), min(g_losses))
