# ok: the same GAN with `self.G` / `self.D`, but the critic sees the fake batch detached and the generator asks the updated discriminator for a fresh verdict.
import torch
import torch.nn as nn

torch.manual_seed(0)


class TinyGAN(nn.Module):
    def __init__(self, width=5):
        super().__init__()
        self.G = nn.Sequential(nn.Linear(width, width), nn.Tanh())
        self.D = nn.Linear(width, 1)
        self.opt_G = torch.optim.Adam(self.G.parameters(), lr=1e-3)
        self.opt_D = torch.optim.Adam(self.D.parameters(), lr=1e-3)

    def critic_update(self, real):
        critic_loss = self.D(self.fake.detach()).mean() - self.D(real).mean()
        critic_loss.backward()

    def generator_update(self):
        generator_loss = -self.D(self.fake).mean()
        generator_loss.backward()

    def step(self, noise, real):
        self.fake = self.G(noise)
        self.opt_D.zero_grad()
        self.critic_update(real)
        self.opt_D.step()
        self.opt_G.zero_grad()
        self.generator_update()
        self.opt_G.step()


gan = TinyGAN()
for _ in range(3):
    gan.step(torch.randn(8, 5), torch.randn(8, 5))
