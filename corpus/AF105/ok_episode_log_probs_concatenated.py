# OK: a policy-gradient episode concatenates each step's log-probability onto a tensor that is rebuilt every episode and back-propagated once at its end.
import torch
import torch.nn as nn

torch.manual_seed(0)
policy = nn.Linear(4, 3)
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
for episode in range(3):
    log_probs = torch.empty(0)
    rewards = []
    for t in range(6):
        choice = torch.distributions.Categorical(logits=policy(torch.randn(4)))
        action = choice.sample()
        log_probs = torch.cat([log_probs, choice.log_prob(action).reshape(1)])
        rewards.append(1.0 if action.item() == 0 else 0.0)
    loss = -(log_probs * torch.tensor(rewards)).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
