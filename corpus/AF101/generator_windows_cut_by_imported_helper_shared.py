# AF101: the generator's output is cut into windows by a helper imported by name, which fills a fresh zero tensor row by row; the windows carry the generator's graph, the discriminator loss reads them without detaching, and its backward() frees the graph the generator loss walks again.
import torch
import torch.nn as nn

from af101_helpers.segments import slice_segments

torch.manual_seed(0)
gen, disc = nn.Linear(12, 12), nn.Linear(4, 1)
opt_g = torch.optim.Adam(gen.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(disc.parameters(), lr=1e-3)
for step in range(3):
    noise, real = torch.randn(2, 12), torch.randn(2, 12)
    offsets = torch.randint(0, 8, (2,))
    fake = slice_segments(torch.tanh(gen(noise)), offsets, 4)
    real_windows = slice_segments(real, offsets, 4)
    loss_d = (disc(fake) - disc(real_windows)).mean()
    opt_d.zero_grad()
    loss_d.backward()
    opt_d.step()
    loss_g = -disc(fake).mean()
    opt_g.zero_grad()
    loss_g.backward()
    opt_g.step()
    print(step, round(loss_g.item(), 4))
