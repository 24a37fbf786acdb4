# AF102 (no fix): the critic's estimates are computed once, kept in the batch dict, and every fitting pass back-propagates through them without recomputing them: the first backward() frees their graph and the second pass fails.
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
    print(sweep, round(critic_loss.item(), 4))
