# OK: a dynamics model rolls out several steps; the per-step losses are stacked and back-propagated.
import torch
import torch.nn as nn

torch.manual_seed(0)
dynamics = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 3))
optimizer = torch.optim.Adam(dynamics.parameters(), lr=1e-3)
trajectory = torch.randn(6, 8, 3).cumsum(0)

for epoch in range(3):
    state = trajectory[0]
    step_losses = []
    for t in range(1, trajectory.size(0)):
        state = state + dynamics(state)
        step_losses.append((state - trajectory[t]).pow(2).mean())
    loss = torch.stack(step_losses).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
