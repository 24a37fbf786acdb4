# AF102: `retain_graph=True` only trades the error for an in-place-modification one after `step()` (unsafe fix).
# autofix-test: unsafe-fixes
import torch
import torch.nn as nn

torch.manual_seed(0)
gru = nn.GRU(3, 5)
opt = torch.optim.SGD(gru.parameters(), lr=0.01)
h = torch.zeros(1, 2, 5)
for it in range(4):
    h = h.detach()
    y, h = gru(torch.randn(4, 2, 3), h)
    loss = y.pow(2).mean()
    opt.zero_grad()
    loss.backward(retain_graph=True)
    opt.step()
