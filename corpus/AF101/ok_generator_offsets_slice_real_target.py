# OK: the generator also hands back integer window offsets; the real target is cut at those offsets by a helper, so the discriminator loss sees the generator only through the offsets (no graph) and the detached fake, and its backward frees nothing the generator loss needs.
import torch
import torch.nn as nn

from af101_helpers import segments


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(12, 12)

    def forward(self, x):
        full = torch.tanh(self.body(x))
        offsets = torch.randint(0, 8, (x.size(0),))
        return segments.slice_segments(full, offsets, 4), offsets


torch.manual_seed(0)
gen, disc = Generator(), nn.Linear(4, 1)
opt_g = torch.optim.Adam(gen.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(disc.parameters(), lr=1e-3)
for step in range(3):
    x, target = torch.randn(2, 12), torch.randn(2, 12)
    fake, offsets = gen(x)
    real = segments.slice_segments(target, offsets, 4)
    loss_d = (disc(fake.detach()) - disc(real)).mean()
    opt_d.zero_grad()
    loss_d.backward()
    opt_d.step()
    loss_g = -disc(fake).mean()
    opt_g.zero_grad()
    loss_g.backward()
    opt_g.step()
print("ok")
