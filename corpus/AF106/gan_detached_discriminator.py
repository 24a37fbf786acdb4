# AF106: the discriminator loss sees only `fake.detach()`; the generator loss makes its own forward.
import torch
from torch import nn

torch.manual_seed(6)
generator = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
discriminator = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
opt_g = torch.optim.Adam(generator.parameters(), lr=2e-3)
opt_d = torch.optim.Adam(discriminator.parameters(), lr=2e-3)
bce = nn.BCEWithLogitsLoss()

for step in range(5):
    real = torch.randn(32, 2) * 0.5 + 1.0
    noise = torch.randn(32, 4)
    fake = generator(noise)

    opt_d.zero_grad()
    d_real = discriminator(real)
    d_fake = discriminator(fake.detach())
    loss_d = bce(d_real, torch.ones_like(d_real)) + bce(d_fake, torch.zeros_like(d_fake))
    loss_d.backward(retain_graph=True)
    opt_d.step()

    opt_g.zero_grad()
    judged = discriminator(fake)
    loss_g = bce(judged, torch.ones_like(judged))
    loss_g.backward()
    opt_g.step()
