# OK: the same pix2pix-style GAN class with the fake detached where the discriminator's loss consumes it.
import torch
import torch.nn as nn


class Pix2PixLike:
    def __init__(self):
        self.netG = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 4))
        self.netD = nn.Sequential(nn.Linear(8, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
        self.criterion = nn.BCEWithLogitsLoss()
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=2e-4)
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=2e-4)

    def set_input(self, source, target):
        self.real_A = source
        self.real_B = target

    def forward(self):
        self.fake_B = self.netG(self.real_A)

    def backward_D(self):
        fake_AB = torch.cat((self.real_A, self.fake_B), 1)
        pred_fake = self.netD(fake_AB.detach())
        real_AB = torch.cat((self.real_A, self.real_B), 1)
        pred_real = self.netD(real_AB)
        self.loss_D = 0.5 * (self.criterion(pred_fake, torch.zeros_like(pred_fake)) + self.criterion(pred_real, torch.ones_like(pred_real)))
        self.loss_D.backward()

    def backward_G(self):
        fake_AB = torch.cat((self.real_A, self.fake_B), 1)
        pred_fake = self.netD(fake_AB)
        self.loss_G = self.criterion(pred_fake, torch.ones_like(pred_fake)) + 10.0 * (self.fake_B - self.real_B).abs().mean()
        self.loss_G.backward()

    def optimize_parameters(self):
        self.forward()
        self.optimizer_D.zero_grad()
        self.backward_D()
        self.optimizer_D.step()
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()


torch.manual_seed(0)
gan = Pix2PixLike()
for it in range(3):
    gan.set_input(torch.randn(5, 4), torch.randn(5, 4))
    gan.optimize_parameters()
    print(it, gan.loss_D.item(), gan.loss_G.item())
