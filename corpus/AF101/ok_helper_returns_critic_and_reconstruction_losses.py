# ok: the helper's second loss (a reconstruction error) never goes through the critic, so the critic's step between the two backward calls changes nothing its graph saved; retain_graph=True keeps the generator's graph for it
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def critic_and_reconstruction(critic, decoder, target):
    codes = torch.randn(target.shape[0], 3)
    decoded = decoder(codes)
    critic_loss = F.softplus(critic(decoded)).mean() + F.softplus(-critic(target)).mean()
    reconstruction = F.mse_loss(decoded, target)
    return critic_loss, reconstruction


critic = nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 1))
decoder = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 5))
critic_opt = torch.optim.SGD(critic.parameters(), lr=0.05)
decoder_opt = torch.optim.SGD(decoder.parameters(), lr=0.05)

for step in range(4):
    target = torch.randn(12, 5)
    critic_loss, reconstruction = critic_and_reconstruction(critic, decoder, target)
    critic_opt.zero_grad()
    decoder_opt.zero_grad()
    critic_loss.backward(retain_graph=True)
    critic_opt.step()
    decoder_opt.zero_grad()
    reconstruction.backward()
    decoder_opt.step()
print("done")
