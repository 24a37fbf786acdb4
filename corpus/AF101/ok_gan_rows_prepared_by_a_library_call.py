# ok: the real rows are prepared once, before training, by a library call (here `deepcopy`, in real code often `scipy.ndimage.rotate`), and each step samples fresh tensors from them; the discriminator's and the generator's losses share no graph, since the generator step runs its own forward passes.
from copy import deepcopy

import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)
rows = [[float(i + j) / 100 for j in range(4)] for i in range(100)]
pool = deepcopy(rows)


def sample(source, n):
    start = torch.randint(0, len(source) - n, (1,)).item()
    return Variable(torch.tensor(source[start:start + n]))


G = nn.Linear(4, 4)
D = nn.Linear(4, 1)
g_optimizer = torch.optim.Adam(G.parameters(), lr=1e-3)
d_optimizer = torch.optim.Adam(D.parameters(), lr=1e-3)

for it in range(3):
    real = sample(pool, 8)
    fake = G(torch.randn(8, 4))
    d_loss = -(D(real).mean() - D(fake.detach()).mean())
    d_loss.backward()
    d_optimizer.step()
    d_optimizer.zero_grad()
    g_optimizer.zero_grad()

    fake = G(torch.randn(8, 4))
    g_loss = -D(fake).mean() + (fake - real).abs().mean()
    g_loss.backward()
    g_optimizer.step()
    g_optimizer.zero_grad()
    d_optimizer.zero_grad()
    print(it, round(d_loss.item(), 4), round(g_loss.item(), 4))
