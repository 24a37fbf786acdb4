# AF105: the discriminator is called through a local alias of the trainer's module (`D = self.D`), its scores unpacked from the tuple its forward returns and scored by a configurable loss function; each micro-batch's graph-carrying divergence is added to a running total, so every micro-batch's graph stays alive until the step
import torch
import torch.nn as nn
from contextlib import nullcontext


def hinge_loss(real, fake):
    return (torch.relu(1 + real) + torch.relu(1 - fake)).mean()


def dual_contrastive_loss(real, fake):
    return (real - fake).pow(2).mean()


class Aug(nn.Module):
    def __init__(self):
        super().__init__()
        self.D = nn.Linear(6, 1)

    def forward(self, x, detach=False):
        if detach:
            x = x.detach()
        out = self.D(x)
        return (out, out * 2, None)


class Trainer:
    def __init__(self, dual=False):
        self.G = nn.Linear(4, 6)
        self.D = Aug()
        self.D_opt = torch.optim.Adam(self.D.parameters())
        self.accum = 4
        self.dual = dual

    def train(self):
        total_disc_loss = torch.zeros([])
        D = self.D
        if self.dual:
            D_loss_fn = dual_contrastive_loss
        else:
            D_loss_fn = hinge_loss
        self.D_opt.zero_grad()
        for i in range(self.accum):
            with nullcontext():
                fake = self.G(torch.randn(8, 4)).detach()
                (real_output, r32, _) = D(torch.randn(8, 6))
                (fake_output, f32, _) = D(fake, detach=True)
                divergence = D_loss_fn(real_output, fake_output)
                disc_loss = divergence / self.accum
            disc_loss.backward()
            total_disc_loss += divergence
        self.d_loss = float(total_disc_loss.item() / self.accum)
        self.D_opt.step()


t = Trainer()
for _ in range(3):
    t.train()
