# AF105: the per-sample losses of every batch are kept in one list with their graphs, for a histogram.
import torch
import torch.nn as nn

torch.manual_seed(0)

scorer = nn.Linear(5, 1)
opt = torch.optim.SGD(scorer.parameters(), lr=0.05)
all_losses = []
for batch in range(4):
    x, y = torch.randn(8, 5), torch.randn(8, 1)
    per_sample = (scorer(x) - y).pow(2).squeeze(1)
    loss = per_sample.mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    all_losses.extend([t.detach() for t in per_sample.unbind(0)])
print(len(all_losses), max(float(v) for v in all_losses))
