# ok: a BEGAN-style balance term `k` is moved by the discriminator's outputs each iteration and rebound to a detached copy on the very next line, so no iteration's graph is kept in it.
import torch
import torch.nn as nn

torch.manual_seed(0)
D = nn.Linear(4, 1)
optimizer = torch.optim.Adam(D.parameters(), lr=1e-3)
k, rate, gamma = 0.0, 0.001, 0.5
for it in range(5):
    real, fake = torch.randn(8, 4), torch.randn(8, 4)
    d_loss = D(real).mean() - k * D(fake).mean()
    optimizer.zero_grad()
    d_loss.backward()
    optimizer.step()
    k = k + rate * (gamma * D(real).mean() - D(fake).mean())
    k = k.detach().clamp(0.0, 1.0)
print(round(float(k), 6))
