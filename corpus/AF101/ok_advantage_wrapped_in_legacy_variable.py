"""Policy gradient with a learned baseline, written for old PyTorch: the advantage is wrapped in
``Variable(returns - values)``, which (since PyTorch 0.4) makes a new leaf with the same data and
no history. The actor's loss never reaches the baseline's graph, freed by the baseline's own
backward: nothing is back-propagated twice. The rule stays silent."""
import torch
import torch.nn as nn
from torch.autograd import Variable

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
    policy_loss = -(Variable(returns - values) * log_probs).mean()
    policy_loss.backward()
    actor_opt.step()
print("ok", policy_loss.item())
