# AF101: the generator hands back window offsets and per-row gains; the gains scale the real target's windows (a value, not an index), so the discriminator loss goes through the generator's graph and its backward frees what the generator loss needs next.
import torch
import torch.nn as nn

from af101_helpers import segments


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(12, 12)
        self.gate = nn.Linear(12, 1)

    def forward(self, x):
        full = torch.tanh(self.body(x))
        offsets = torch.randint(0, 8, (x.size(0),))
        gains = torch.sigmoid(self.gate(full)).squeeze(1)
        return full[:, :4], offsets, gains


torch.manual_seed(0)
gen, disc = Generator(), nn.Linear(4, 1)
opt_g = torch.optim.Adam(gen.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(disc.parameters(), lr=1e-3)
for step in range(3):
    x, target = torch.randn(2, 12), torch.randn(2, 12)
    fake, offsets, gains = gen(x)
    real = segments.weighted_segments(target, offsets, gains, 4)
    loss_d = (disc(fake.detach()) - disc(real)).mean()
    opt_d.zero_grad()
    loss_d.backward()
    opt_d.step()
    loss_g = -disc(fake).mean()
    opt_g.zero_grad()
    loss_g.backward()
    opt_g.step()
print("ok")
