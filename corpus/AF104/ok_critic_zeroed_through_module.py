# Not AF104: encoder_gan_critic_never_zeroed with the critic's gradients cleared through the
# module itself (`critic.zero_grad()`) before its backward pass: the critic's optimizer steps only
# this batch's critic gradients, and the encoder's optimizer is zeroed before the encoder's pass.
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Linear(6, 3)
decoder = nn.Linear(3, 6)
critic = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 1))
encoder_opt = torch.optim.Adam(encoder.parameters(), lr=1e-3)
critic_opt = torch.optim.Adam(critic.parameters(), lr=1e-3)

for step in range(4):
    x = torch.randn(10, 6)
    rebuilt = decoder(encoder(x))

    critic_loss = critic(rebuilt.detach()).mean() - critic(x).mean()
    critic.zero_grad()
    critic_loss.backward()
    critic_opt.step()

    adversarial = -critic(rebuilt).mean()
    encoder_loss = (rebuilt - x).pow(2).mean() + 0.1 * adversarial
    encoder_opt.zero_grad()
    encoder_loss.backward()
    encoder_opt.step()
    print(step, round(critic_loss.item(), 4), round(encoder_loss.item(), 4))
