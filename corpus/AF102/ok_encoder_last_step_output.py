# ok: each iteration encodes the whole observed trajectory step by step with a recurrent cell; the output of the last step is used after that inner loop, and the inner loop over the time steps always runs, so `out` is this iteration's, never the previous one's.
import torch
import torch.nn as nn

torch.manual_seed(0)
cell = nn.RNNCell(2, 4)
head = nn.Linear(4, 1)
optimizer = torch.optim.Adam([*cell.parameters(), *head.parameters()], lr=1e-3)
trajectories = torch.randn(8, 6, 2)

for iteration in range(3):
    optimizer.zero_grad()
    h = torch.zeros(8, 4)
    for t in reversed(range(trajectories.size(1))):
        out = h = cell(trajectories[:, t, :], h)
    loss = head(out).pow(2).mean()
    loss.backward()
    optimizer.step()
    print(iteration, round(loss.item(), 4))
