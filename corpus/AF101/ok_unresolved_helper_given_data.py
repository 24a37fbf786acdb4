# Not AF101: the actor and the critic are separate networks; the only value both losses read comes from
# a helper imported from a folder put on sys.path at run time, which autofix cannot read. No graph goes
# into it (a mask made from the batch), so nothing proves it runs a forward pass the two losses share.
import os
import sys

import torch
import torch.nn as nn

# The vendored folder sits next to this script (or next to the folder a runner put on sys.path).
for base in [os.path.dirname(os.path.abspath(__file__)), *sys.path]:
    if os.path.isdir(os.path.join(base, "af101_vendored")):
        sys.path.insert(0, os.path.join(base, "af101_vendored"))
        break
from mask_tools import as_weights  # noqa: E402

torch.manual_seed(8)
actor = nn.Linear(4, 2)
critic = nn.Linear(4, 1)
actor_optimizer = torch.optim.SGD(actor.parameters(), lr=0.1)
critic_optimizer = torch.optim.SGD(critic.parameters(), lr=0.1)

for _ in range(3):
    states = torch.randn(8, 4)
    returns = torch.randn(8, 1)
    weights = as_weights(torch.ones(8, 1))
    log_probs = torch.log_softmax(actor(states), dim=-1)[:, :1]
    actor_loss = -(log_probs * weights).mean()
    actor_optimizer.zero_grad()
    actor_loss.backward()
    actor_optimizer.step()
    critic_loss = ((critic(states) - returns).pow(2) * weights).mean()
    critic_optimizer.zero_grad()
    critic_loss.backward()
    critic_optimizer.step()
print("trained")
