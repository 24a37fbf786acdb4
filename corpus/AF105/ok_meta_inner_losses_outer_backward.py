# OK: MAML-style — inner-loop query losses are summed into `meta_loss`, which is back-propagated.
import torch
import torch.nn as nn
from torch.func import functional_call

torch.manual_seed(0)
learner = nn.Linear(2, 1)
meta_opt = torch.optim.Adam(learner.parameters(), lr=1e-3)

for meta_step in range(2):
    meta_loss = 0.0
    for task in range(3):
        xs, ys = torch.randn(5, 2), torch.randn(5, 1)
        xq, yq = torch.randn(5, 2), torch.randn(5, 1)
        params = dict(learner.named_parameters())
        inner = nn.functional.mse_loss(functional_call(learner, params, (xs,)), ys)
        grads = torch.autograd.grad(inner, list(params.values()), create_graph=True)
        fast = {name: p - 0.1 * g for (name, p), g in zip(params.items(), grads)}
        meta_loss += nn.functional.mse_loss(functional_call(learner, fast, (xq,)), yq)
    meta_opt.zero_grad()
    meta_loss.backward()
    meta_opt.step()
