# AF101: `torch.autograd.backward` on two losses of one forward pass; the second call finds the graph freed.
import torch
import torch.nn as nn
from torch import autograd

torch.manual_seed(0)
policy = nn.Sequential(nn.Linear(4, 32), nn.Tanh(), nn.Linear(32, 3))
value_head = nn.Linear(3, 1)
optimizer = torch.optim.Adam(list(policy.parameters()) + list(value_head.parameters()), lr=3e-4)

for update in range(3):
    obs = torch.randn(20, 4)
    actions = torch.randint(0, 3, (20,))
    returns = torch.randn(20)
    optimizer.zero_grad()
    logits = policy(obs)
    values = value_head(logits).squeeze(-1)
    advantage = (returns - values).detach()
    policy_loss = -(torch.log_softmax(logits, -1).gather(1, actions[:, None]).squeeze(1) * advantage).mean()
    value_loss = (returns - values).pow(2).mean()
    autograd.backward(policy_loss)
    autograd.backward(value_loss)
    optimizer.step()
    print(update, policy_loss.item(), value_loss.item())
