# AF105: the critic runs a few steps per generator step and their losses are summed with their graphs; the sum is averaged and turned into a number only after the critic loop, so every critic step's graph stays alive until then. The fix detaches each term and keeps the average a tensor, so `.item()` still works on it.
import torch
import torch.nn as nn

torch.manual_seed(0)
critic = nn.Linear(4, 1)
critic_optimizer = torch.optim.Adam(critic.parameters(), lr=1e-3)
critic_steps = 3

for step in range(3):
    real = torch.randn(8, 4)
    critic_total = 0.0
    for _ in range(critic_steps):
        critic_optimizer.zero_grad()
        critic_loss = critic(real).pow(2).mean()
        critic_loss.backward()
        critic_optimizer.step()
        critic_total += critic_loss.detach()
    critic_average = critic_total / critic_steps
    critic_average = critic_average.item()
    print(step, round(critic_average, 4))
