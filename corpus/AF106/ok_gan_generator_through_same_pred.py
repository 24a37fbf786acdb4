# Not AF106: the generator loss goes back through the discriminator output the discriminator loss used.
import torch
from torch import nn

torch.manual_seed(20)
generator = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
discriminator = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
opt_g = torch.optim.Adam(generator.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(discriminator.parameters(), lr=1e-3)
bce = nn.BCEWithLogitsLoss()

for step in range(4):
    real = torch.randn(16, 2) + 2.0
    fake = generator(torch.randn(16, 4))
    pred_fake = discriminator(fake)
    pred_real = discriminator(real)
    loss_g = bce(pred_fake, torch.ones_like(pred_fake))
    loss_d = bce(pred_fake, torch.zeros_like(pred_fake)) + bce(pred_real, torch.ones_like(pred_real))
    opt_g.zero_grad()
    opt_d.zero_grad()
    # Each loss updates only its own network; both walk the graph of `pred_fake`.
    loss_g.backward(retain_graph=True, inputs=list(generator.parameters()))
    loss_d.backward(inputs=list(discriminator.parameters()))
    opt_g.step()
    opt_d.step()
