# OK: DCGAN-style step: D losses on real and fake.detach() (separate forwards), D step, then G loss and G step.
import torch
import torch.nn as nn

torch.manual_seed(0)
latent = 4
netG = nn.Sequential(nn.Linear(latent, 16), nn.ReLU(), nn.Linear(16, 8))
netD = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
criterion = nn.BCEWithLogitsLoss()

for i in range(3):
    real = torch.randn(10, 8)
    noise = torch.randn(10, latent)
    real_label = torch.full((10, 1), 1.0)
    fake_label = torch.full((10, 1), 0.0)

    netD.zero_grad()
    errD_real = criterion(netD(real), real_label)
    errD_real.backward()
    fake = netG(noise)
    errD_fake = criterion(netD(fake.detach()), fake_label)
    errD_fake.backward()
    optimizerD.step()

    netG.zero_grad()
    errG = criterion(netD(fake), real_label)
    errG.backward()
    optimizerG.step()
    print(i, (errD_real + errD_fake).item(), errG.item())
