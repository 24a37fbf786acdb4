# AF101: a dict of named losses from one forward pass, each back-propagated inside `for name, loss in losses.items()`.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
autoenc = nn.ModuleDict({"enc": nn.Linear(12, 4), "dec": nn.Linear(4, 12)})
optimizer = torch.optim.RMSprop(autoenc.parameters(), lr=1e-3)


def run_batch(batch):
    code = torch.tanh(autoenc["enc"](batch))
    recon = autoenc["dec"](code)
    losses = {}
    losses["recon"] = F.mse_loss(recon, batch)
    losses["sparsity"] = 1e-2 * code.abs().mean()
    optimizer.zero_grad()
    for name, loss in losses.items():
        loss.backward(retain_graph=True)
    optimizer.step()
    return {k: v.item() for k, v in losses.items()}


for step in range(3):
    print(step, run_batch(torch.randn(16, 12)))
