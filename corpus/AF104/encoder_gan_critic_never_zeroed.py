# AF104: an encoder is trained against a critic. The encoder's optimizer is zeroed every batch,
# but the critic's never is: each `critic_opt.step()` applies the sum of every critic gradient
# so far, including those the encoder's adversarial loss leaves on the critic. Zeroing the
# encoder's optimizer does not help: it updates a different model.
# autofix-test: unsafe-fixes
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
    critic_loss.backward()
    critic_opt.step()

    adversarial = -critic(rebuilt).mean()
    encoder_loss = (rebuilt - x).pow(2).mean() + 0.1 * adversarial
    encoder_opt.zero_grad()
    encoder_loss.backward()
    encoder_opt.step()
    print(step, round(critic_loss.item(), 4), round(encoder_loss.item(), 4))
