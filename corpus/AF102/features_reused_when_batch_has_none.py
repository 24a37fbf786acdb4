# AF102: a stream hands either fresh inputs or None ("reuse the last features"); the features are
# recomputed only under `isinstance(item, torch.Tensor)`, a test of the loop's own variable, so an
# iteration given None reads the graph of an earlier iteration, which that iteration's backward freed.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
encoder = nn.Linear(5, 8)
head = nn.Linear(8, 3)
opt = torch.optim.SGD([*encoder.parameters(), *head.parameters()], lr=0.05)
stream = [(torch.randn(4, 5), torch.randint(0, 3, (4,))), (None, torch.randint(0, 3, (4,)))] * 2
features = None
for item, target in stream:
    if isinstance(item, torch.Tensor):
        features = torch.relu(encoder(item))
    loss = F.cross_entropy(head(features), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("done", loss.item())
