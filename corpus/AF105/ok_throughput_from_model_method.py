# ok: a smoothed utilisation figure from a model method that only does arithmetic on sizes and
# timings; it is a Python number, not a graph, however the model object was unwrapped.
import time

import torch
import torch.nn as nn

torch.manual_seed(0)


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 32), nn.GELU(), nn.Linear(32, 1))

    def forward(self, x):
        return self.body(x)

    def utilisation(self, samples, seconds):
        weights = sum(p.numel() for p in self.parameters())
        return 6 * weights * samples / max(seconds, 1e-9) / 1e12


model = Regressor()
wrapped = torch.nn.DataParallel(model) if torch.cuda.device_count() > 1 else model
plain = wrapped.module if hasattr(wrapped, "module") else wrapped
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
smoothed = -1.0
for step in range(5):
    start = time.time()
    x, y = torch.randn(16, 8), torch.randn(16, 1)
    loss = nn.functional.mse_loss(wrapped(x), y)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    used = plain.utilisation(16, time.time() - start)
    smoothed = used if smoothed == -1.0 else 0.9 * smoothed + 0.1 * used
print(f"utilisation {smoothed:.3e}")
