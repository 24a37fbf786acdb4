# AF105: per-term totals built with `totals.get(name, 0) + term` keep each epoch's graphs in a dict.
import torch
import torch.nn as nn

torch.manual_seed(0)

autoencoder = nn.Sequential(nn.Linear(8, 3), nn.Tanh(), nn.Linear(3, 8))
optimizer = torch.optim.Adam(autoencoder.parameters(), lr=1e-3)
totals = {}
for batch in range(5):
    x = torch.randn(16, 8)
    recon = autoencoder(x)
    terms = {"recon": (recon - x).pow(2).mean(), "sparsity": recon.abs().mean()}
    loss = terms["recon"] + 0.1 * terms["sparsity"]
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    for name in terms:
        totals[name] = totals.get(name, 0) + terms[name]
print({name: float(value) / 5 for name, value in totals.items()})
