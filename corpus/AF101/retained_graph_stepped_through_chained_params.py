# AF101: the generator-and-encoder optimizer is built from a parameter chain held in a variable; it steps after the first backward kept the graph, and the critic loss then back-propagates through the generator's graph whose weights that step rewrote in place.
import itertools

import torch
from torch import nn

torch.manual_seed(0)
generator = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 4))
encoder = nn.Linear(4, 6)
critic = nn.Sequential(nn.Linear(4, 12), nn.ReLU(), nn.Linear(12, 1))
trainable = itertools.chain(generator.parameters(), encoder.parameters())
gen_enc_opt = torch.optim.Adam(trainable, lr=1e-3)
critic_opt = torch.optim.Adam(critic.parameters(), lr=1e-3)

for step in range(4):
    real = torch.randn(10, 4)
    codes = torch.randn(10, 6)
    gen_enc_opt.zero_grad()
    produced = generator(codes)
    score_fake = critic(produced)
    if step % 2 == 0:
        recon = nn.functional.mse_loss(encoder(produced), codes)
        gen_loss = -score_fake.mean() + recon
        gen_loss.backward(retain_graph=True)
        gen_enc_opt.step()
    critic_opt.zero_grad()
    critic_loss = score_fake.mean() - critic(real).mean()
    critic_loss.backward()
    critic_opt.step()
