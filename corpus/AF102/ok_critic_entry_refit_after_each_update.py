# OK: the rollout batch keeps the critic's estimates under "estimate"; each fitting pass back-propagates them once and then stores a fresh critic forward under the same key, so no pass reaches a freed graph (the other entries hold no graph).
import torch
import torch.nn as nn

torch.manual_seed(0)

critic = nn.Linear(5, 1)
optimizer = torch.optim.Adam(critic.parameters(), lr=1e-2)

observations = torch.randn(16, 5)
batch = {
    "obs": observations,
    "returns": torch.randn(16),
    "estimate": critic(observations).squeeze(1),
}

for sweep in range(4):
    critic_loss = (batch["estimate"] - batch["returns"]).pow(2).mean()
    optimizer.zero_grad()
    critic_loss.backward()
    optimizer.step()
    batch["estimate"] = critic(batch["obs"]).squeeze(1)
    print(sweep, round(critic_loss.item(), 4))
