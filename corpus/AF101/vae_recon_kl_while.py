# AF101: VAE: reconstruction and KL terms both come from one encoder pass; a `while` loop over a fixed budget.
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyVAE(nn.Module):
    def __init__(self, dim=12, latent=3):
        super().__init__()
        self.enc = nn.Linear(dim, 2 * latent)
        self.dec = nn.Linear(latent, dim)

    def forward(self, x):
        mu, logvar = self.enc(x).chunk(2, dim=-1)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        return self.dec(z), mu, logvar


torch.manual_seed(0)
vae = TinyVAE()
opt = torch.optim.Adam(vae.parameters(), lr=2e-3)
budget, seen = 3, 0
while seen < budget:
    data = torch.rand(9, 12)
    opt.zero_grad()
    recon, mu, logvar = vae(data)
    rec_loss = F.binary_cross_entropy_with_logits(recon, data)
    kl_loss = -0.5 * torch.mean(1 + logvar - mu.pow(2) - logvar.exp())
    rec_loss.backward(retain_graph=True)
    kl_loss.backward()
    opt.step()
    seen += 1
    print(seen, rec_loss.item(), kl_loss.item())
