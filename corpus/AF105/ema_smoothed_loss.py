# AF105: an exponential moving average of the loss keeps a chain of every step's graph.
import torch
import torch.nn as nn

torch.manual_seed(0)

policy = nn.Sequential(nn.Linear(4, 32), nn.Tanh(), nn.Linear(32, 2))
opt = torch.optim.Adam(policy.parameters(), lr=3e-3)
smoothed = 0.0
decay = 0.9
for update in range(6):
    obs, action = torch.randn(24, 4), torch.randint(0, 2, (24,))
    loss = nn.functional.cross_entropy(policy(obs), action)
    opt.zero_grad()
    loss.backward()
    opt.step()
    smoothed = (1 - decay) * loss + decay * smoothed
    print(f"update {update}: smoothed loss {float(smoothed):.3f}")
