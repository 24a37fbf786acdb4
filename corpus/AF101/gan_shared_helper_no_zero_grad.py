# AF101: a CycleGAN-style class whose shared discriminator helper takes the fake without detach(); the generator's gradients are never zeroed in between, so detaching would change G's step: reported without a fix.
import torch
import torch.nn as nn


class CycleLike:
    def __init__(self):
        self.gen = nn.Linear(3, 3)
        self.disc = nn.Linear(3, 1)
        self.opt_g = torch.optim.SGD(self.gen.parameters(), lr=0.01)
        self.opt_d = torch.optim.SGD(self.disc.parameters(), lr=0.01)

    def backward_d_basic(self, disc, real, fake):
        loss = (disc(fake) - disc(real)).mean()
        loss.backward()
        return loss

    def step(self, real_a, real_b):
        self.opt_g.zero_grad()
        self.opt_d.zero_grad()
        self.fake_b = self.gen(real_a)
        self.loss_d = self.backward_d_basic(self.disc, real_b, self.fake_b)
        self.loss_g = -self.disc(self.fake_b).mean()
        self.loss_g.backward()
        self.opt_d.step()
        self.opt_g.step()


torch.manual_seed(0)
model = CycleLike()
for it in range(2):
    model.step(torch.randn(4, 3), torch.randn(4, 3))
    print(it, model.loss_d.item(), model.loss_g.item())
