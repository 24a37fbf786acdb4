# OK: the actor loss is computed from a second forward pass after the critic's step, so each backward has a graph of its own.
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 3))
optimizer = torch.optim.SGD(net.parameters(), lr=0.05)
for it in range(3):
    obs, target_value = torch.randn(5, 3), torch.randn(5, 1)
    value = net(obs)[:, 2:]
    critic_loss = (value - target_value).pow(2).mean()
    optimizer.zero_grad()
    critic_loss.backward()
    optimizer.step()
    logits = net(obs)[:, :2]
    actor_loss = -torch.log_softmax(logits, dim=-1)[:, 0].mean()
    optimizer.zero_grad()
    actor_loss.backward()
    optimizer.step()
    print(it, critic_loss.item(), actor_loss.item())
