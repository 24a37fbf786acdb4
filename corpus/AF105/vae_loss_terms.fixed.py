# AF105: VAE training sums the reconstruction and KL terms (not the back-propagated loss) per epoch.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class VAE(nn.Module):
    def __init__(self, dim=10, latent=2):
        super().__init__()
        self.enc = nn.Linear(dim, 2 * latent)
        self.dec = nn.Linear(latent, dim)

    def forward(self, x):
        mu, logvar = self.enc(x).chunk(2, dim=-1)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        return self.dec(z), mu, logvar


vae = VAE()
optimizer = torch.optim.Adam(vae.parameters(), lr=1e-3)
data = torch.randn(5, 16, 10)
recon_sum, kl_sum = 0.0, 0.0
for x in data:
    recon, mu, logvar = vae(x)
    recon_term = F.mse_loss(recon, x, reduction="sum")
    kl_term = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    loss = (recon_term + kl_term) / x.size(0)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    recon_sum += recon_term.detach()
    kl_sum += kl_term.detach()
print("recon", recon_sum / 80, "kl", kl_sum / 80)
