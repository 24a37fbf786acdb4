# A GAN class keeps its losses on self for logging; the discriminator loss is back-propagated where it is set.
import torch
import torch.nn as nn

torch.manual_seed(0)


class TinyGAN:
    def __init__(self):
        self.netG = nn.Linear(4, 6)
        self.netD = nn.Linear(6, 1)
        self.opt_G = torch.optim.Adam(self.netG.parameters(), lr=2e-4)
        self.opt_D = torch.optim.Adam(self.netD.parameters(), lr=2e-4)
        self.criterion = nn.BCEWithLogitsLoss()
        self.use_penalty = False

    def backward_D(self, real, fake):
        pred_real = self.netD(real)
        pred_fake = self.netD(fake.detach())
        if self.use_penalty:
            self.loss_D = self.criterion(pred_real, torch.ones_like(pred_real)) + pred_fake.pow(2).mean()
        else:
            self.loss_D = (self.criterion(pred_real, torch.ones_like(pred_real))
                           + self.criterion(pred_fake, torch.zeros_like(pred_fake))) * 0.5
        self.loss_D.backward()

    def optimize(self, real):
        fake = self.netG(torch.randn(real.size(0), 4))
        self.opt_D.zero_grad()
        self.backward_D(real, fake)
        self.opt_D.step()
        self.opt_G.zero_grad()
        pred = self.netD(fake)
        self.loss_G = self.criterion(pred, torch.ones_like(pred))
        self.loss_G.backward()
        self.opt_G.step()


gan = TinyGAN()
for it in range(3):
    gan.optimize(torch.randn(8, 6))
print(gan.loss_D.item(), gan.loss_G.item())
