# ok: states and actions come from imported helpers that only copy plain rows into new tensors, and the actor loss reads the critic's value detached, so the actor and critic backward calls meet in no graph.
import torch
import torch.nn as nn
from af101_helpers.tensor_inputs import one_hot_rows, rows_to_tensor

torch.manual_seed(0)
actor = nn.Sequential(nn.Linear(4, 2), nn.LogSoftmax(dim=-1))
critic = nn.Linear(4, 1)
actor_opt = torch.optim.Adam(actor.parameters(), lr=1e-3)
critic_opt = torch.optim.Adam(critic.parameters(), lr=1e-3)

for episode in range(3):
    rows = torch.randn(6, 4).tolist()
    picked = torch.randint(0, 2, (6,)).tolist()
    returns = torch.randn(6, 1).tolist()
    states = rows_to_tensor(rows)
    actions = one_hot_rows(picked, 2)
    targets = rows_to_tensor(returns)

    values = critic(states)
    log_probs = (actor(states) * actions).sum(dim=1, keepdim=True)
    actor_loss = -(log_probs * (targets - values.detach())).mean()
    actor_opt.zero_grad()
    actor_loss.backward()
    actor_opt.step()

    critic_loss = (values - targets).pow(2).mean()
    critic_opt.zero_grad()
    critic_loss.backward()
    critic_opt.step()
    print(episode, actor_loss.item(), critic_loss.item())
