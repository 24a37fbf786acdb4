# doctor: AF105 at train.py: the per-term totals are a dict, and `totals[name] += value` keeps every batch's graph alive.
import torch
import torch.nn as nn

from losses import loss_terms

torch.manual_seed(0)
data = torch.randn(48, 10)
encoder, decoder = nn.Linear(10, 4), nn.Linear(4, 10)
optimizer = torch.optim.Adam([*encoder.parameters(), *decoder.parameters()], lr=1e-2)
totals = {"reconstruction": 0.0, "sparsity": 0.0}
for batch in data.split(6):
    code = torch.relu(encoder(batch))
    terms = loss_terms(decoder(code), batch, code)
    loss = sum(terms.values())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    for name, value in terms.items():
        totals[name] += value
print({name: float(total) / 8 for name, total in totals.items()})
