# AF105: a dict keyed by step keeps every step's loss tensor, and with it every step's graph.
import torch
import torch.nn as nn

torch.manual_seed(0)

critic = nn.Linear(7, 1)
opt = torch.optim.RMSprop(critic.parameters(), lr=1e-3)
loss_log = {}
for step in range(5):
    states, returns = torch.randn(30, 7), torch.randn(30, 1)
    loss = (critic(states) - returns).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    loss_log[step] = loss.detach()
print(min(loss_log, key=lambda s: float(loss_log[s])))
