"""The same update without the ``Variable`` wrapper (or a ``.detach()``): the advantage
``returns - values`` still holds the baseline's graph, which the baseline's backward freed, so
the actor's backward raises ``Trying to backward through the graph a second time``. No fix:
detach the advantage where the actor's loss uses it (the usual intent), or sum the losses."""
import torch
import torch.nn as nn

critic = nn.Linear(3, 1)
actor = nn.Linear(3, 1)
critic_opt = torch.optim.Adam(critic.parameters(), lr=1e-2)
actor_opt = torch.optim.Adam(actor.parameters(), lr=1e-2)

for episode in range(3):
    states, returns = torch.randn(16, 3), torch.randn(16, 1)
    critic_opt.zero_grad()
    values = critic(states)
    value_loss = (returns - values).pow(2).mean()
    value_loss.backward()
    critic_opt.step()

    actor_opt.zero_grad()
    log_probs = actor(states)
    policy_loss = -((returns - values) * log_probs).mean()
    policy_loss.backward()
    actor_opt.step()
print("ok", policy_loss.item())
