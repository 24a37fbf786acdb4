# ok: the optimizer that steps between the two backward calls is built from a parameter chain of the two heads only; the trunk both losses go through keeps its weights until both have back-propagated.
import itertools

import torch
from torch import nn

torch.manual_seed(0)
trunk = nn.Sequential(nn.Linear(5, 16), nn.Tanh())
value_head = nn.Linear(16, 1)
aux_head = nn.Linear(16, 5)
head_params = itertools.chain(value_head.parameters(), aux_head.parameters())
head_opt = torch.optim.SGD(head_params, lr=0.01)
trunk_opt = torch.optim.SGD(trunk.parameters(), lr=0.01)

for batch in [torch.randn(8, 5) for _ in range(3)]:
    head_opt.zero_grad()
    trunk_opt.zero_grad()
    features = trunk(batch)
    value_loss = value_head(features).pow(2).mean()
    value_loss.backward(retain_graph=True)
    head_opt.step()
    recon_loss = (aux_head(features.detach()) - batch).pow(2).mean() + features.pow(2).mean()
    recon_loss.backward()
    trunk_opt.step()
