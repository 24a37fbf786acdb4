# ok: a WGAN-style loop zeroes the generator's gradients on every batch but back-propagates and steps
# the generator only every n-th batch, inside the same guard: nothing is accumulated across batches.
import torch
import torch.nn as nn

torch.manual_seed(0)

latent = 4
generator = nn.Sequential(nn.Linear(latent, 16), nn.ReLU(), nn.Linear(16, 6))
critic = nn.Sequential(nn.Linear(6, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
opt_gen = torch.optim.RMSprop(generator.parameters(), lr=5e-4)
opt_critic = torch.optim.RMSprop(critic.parameters(), lr=5e-4)
critic_rounds = 3
for batch_index in range(9):
    real = torch.randn(12, 6)
    opt_critic.zero_grad()
    fake = generator(torch.randn(12, latent)).detach()
    critic_loss = critic(fake).mean() - critic(real).mean()
    critic_loss.backward()
    opt_critic.step()

    opt_gen.zero_grad()
    if batch_index % critic_rounds == 0:
        gen_loss = -critic(generator(torch.randn(12, latent))).mean()
        gen_loss.backward()
        opt_gen.step()
        print(f"batch {batch_index}: critic {critic_loss.item():.3f} generator {gen_loss.item():.3f}")
