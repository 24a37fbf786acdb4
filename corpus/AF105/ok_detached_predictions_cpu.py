# OK: predictions collected for metrics are detached and moved to the CPU first.
import torch
import torch.nn as nn

torch.manual_seed(0)
clf = nn.Linear(6, 2)
optimizer = torch.optim.SGD(clf.parameters(), lr=0.1)
preds, targets = [], []
for _ in range(4):
    x = torch.randn(10, 6)
    y = torch.randint(0, 2, (10,))
    out = clf(x)
    loss = nn.functional.cross_entropy(out, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    preds.append(out.detach().cpu())
    targets.append(y)
print((torch.cat(preds).argmax(1) == torch.cat(targets)).float().mean().item())
