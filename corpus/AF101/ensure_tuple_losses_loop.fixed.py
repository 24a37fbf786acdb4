# AF101: a trainer state holds the loss (or a tuple of losses from one forward pass), and every element is back-propagated in a loop over ensure_tuple(state.loss).
import torch
import torch.nn as nn

from af101_helpers.multitask_terms import ensure_tuple


class State:
    pass


torch.manual_seed(0)
net = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 2))
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
state = State()
for it in range(3):
    x, y = torch.randn(4, 5), torch.randn(4, 2)
    optimizer.zero_grad()
    state.outputs = net(x)
    state.loss = (nn.functional.mse_loss(state.outputs, y), state.outputs.pow(2).mean() * 0.1)
    sum(ensure_tuple(state.loss)).backward()
    optimizer.step()
    print(it, [round(loss.item(), 4) for loss in state.loss])
