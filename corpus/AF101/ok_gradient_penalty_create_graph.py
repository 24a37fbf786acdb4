# OK: WGAN-GP critic step: the gradient penalty needs create_graph=True and a separate backward of the critic loss.
import torch
import torch.nn as nn

torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 1))
generator = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 5))
opt_c = torch.optim.Adam(critic.parameters(), lr=1e-4, betas=(0.0, 0.9))
lambda_gp = 10.0


def gradient_penalty(real, fake):
    alpha = torch.rand(real.size(0), 1)
    mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    scores = critic(mixed)
    grads = torch.autograd.grad(scores.sum(), mixed, create_graph=True)[0]
    return ((grads.norm(2, dim=1) - 1) ** 2).mean()


for it in range(3):
    real = torch.randn(8, 5)
    with torch.no_grad():
        fake = generator(torch.randn(8, 2))
    opt_c.zero_grad()
    scores_real = critic(real)
    wasserstein = critic(fake).mean() - scores_real.mean()
    penalty = lambda_gp * gradient_penalty(real, fake)
    wasserstein.backward()
    penalty.backward(create_graph=False)
    opt_c.step()
    print(it, wasserstein.item(), penalty.item())
