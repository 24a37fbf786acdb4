# AF104: GAN with two optimizers: the discriminator's zero_grad() runs after its backward() and before its step(); G is correct.
import torch
import torch.nn as nn

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 4))
D = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
opt_G = torch.optim.Adam(G.parameters(), lr=2e-4)
opt_D = torch.optim.Adam(D.parameters(), lr=2e-4)
bce = nn.BCEWithLogitsLoss()

for it in range(3):
    real = torch.randn(6, 4)
    fake = G(torch.randn(6, 2))
    d_loss = bce(D(real), torch.ones(6, 1)) + bce(D(fake.detach()), torch.zeros(6, 1))
    d_loss.backward()
    opt_D.zero_grad()
    opt_D.step()

    opt_G.zero_grad()
    g_loss = bce(D(fake), torch.ones(6, 1))
    g_loss.backward()
    opt_G.step()
    print(it, d_loss.item(), g_loss.item())
