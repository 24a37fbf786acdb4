# AF101: one helper computes the critic's and the generator's losses from the same critic forward; the critic's optimizer steps between the two backward calls, so the generator's backward meets critic weights changed in place after its graph saved them
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def adversarial_losses(critic, generator, real):
    noise = torch.randn(real.shape[0], 3)
    fake = generator(noise)
    on_fake = critic(fake)
    on_real = critic(real)
    critic_loss = F.softplus(on_fake).mean() + F.softplus(-on_real).mean()
    generator_loss = F.softplus(-on_fake).mean()
    return critic_loss, generator_loss


critic = nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 1))
generator = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 5))
critic_opt = torch.optim.SGD(critic.parameters(), lr=0.05)
generator_opt = torch.optim.SGD(generator.parameters(), lr=0.05)

for step in range(4):
    real = torch.randn(12, 5)
    critic_loss, generator_loss = adversarial_losses(critic, generator, real)
    critic_opt.zero_grad()
    critic_loss.backward(retain_graph=True)
    critic_opt.step()
    generator_opt.zero_grad()
    generator_loss.backward()
    generator_opt.step()
print("done")
