# Not AF106: a WGAN-GP critic step differentiates through its own gradients (create_graph=True).
import torch
from torch import nn

torch.manual_seed(21)
critic = nn.Sequential(nn.Linear(3, 32), nn.Tanh(), nn.Linear(32, 1))
optimizer = torch.optim.Adam(critic.parameters(), lr=1e-3)

for step in range(4):
    real, fake = torch.randn(8, 3), torch.randn(8, 3) + 1.0
    alpha = torch.rand(8, 1)
    mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    scores = critic(mixed)
    grads = torch.autograd.grad(scores.sum(), mixed, create_graph=True, retain_graph=True)[0]
    penalty = ((grads.norm(2, dim=1) - 1) ** 2).mean()
    loss = critic(fake).mean() - critic(real).mean() + 10.0 * penalty
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
