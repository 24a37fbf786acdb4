# ok: the label tensors come from a helper that only moves its argument (no module, no parameter), so the discriminator and generator losses share no graph through them.
import torch
import torch.nn as nn


def as_input(x):
    if torch.cuda.is_available():
        x = x.cuda()
    return x.float()


torch.manual_seed(0)
generator = nn.Linear(2, 3)
discriminator = nn.Sequential(nn.Linear(3, 1), nn.Sigmoid())
opt_g = torch.optim.Adam(generator.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(discriminator.parameters(), lr=1e-3)
criterion = nn.BCELoss()

for _ in range(3):
    real = torch.randn(4, 3)
    real_labels = as_input(torch.ones(4, 1))
    fake_labels = as_input(torch.zeros(4, 1))
    fake = generator(torch.randn(4, 2))
    d_loss = criterion(discriminator(real), real_labels) + criterion(discriminator(fake.detach()), fake_labels)
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    g_loss = criterion(discriminator(fake), real_labels)
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
