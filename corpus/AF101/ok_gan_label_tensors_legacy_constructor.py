# AF101 negative: the discriminator and generator losses share only label tensors built with the legacy `torch.FloatTensor(n).fill_()` constructor (data, no graph); the discriminator sees detached images, so its backward frees nothing the generator's backward needs.
import torch
import torch.nn as nn


class GanRunner:
    def __init__(self):
        self.generator = nn.Sequential(nn.Linear(4, 8), nn.Tanh())
        self.discriminator = nn.Sequential(nn.Linear(8, 1), nn.Sigmoid())
        self.criterion = nn.BCELoss()
        self.opt_g = torch.optim.Adam(self.generator.parameters(), lr=1e-3)
        self.opt_d = torch.optim.Adam(self.discriminator.parameters(), lr=1e-3)

    def train_step(self, noise, real):
        batch = noise.size(0)
        self.real_label = torch.FloatTensor(batch).resize_([batch, 1]).data.fill_(1)
        self.fake_label = torch.FloatTensor(batch).resize_([batch, 1]).data.fill_(0)
        self.fake = self.generator(noise)
        self.discriminator_update(real)
        return self.generator_update()

    def discriminator_update(self, real):
        self.opt_d.zero_grad()
        err_real = self.criterion(self.discriminator(real.detach()), self.real_label)
        err_fake = self.criterion(self.discriminator(self.fake.detach()), self.fake_label)
        (err_real + err_fake).backward()
        self.opt_d.step()

    def generator_update(self):
        self.opt_g.zero_grad()
        err_g = self.criterion(self.discriminator(self.fake), self.real_label)
        err_g.backward()
        self.opt_g.step()
        return err_g.item()


torch.manual_seed(0)
runner = GanRunner()
for step in range(3):
    print(f"step {step} generator loss {runner.train_step(torch.randn(5, 4), torch.randn(5, 8)):.4f}")
