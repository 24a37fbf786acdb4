# OK: truncated BPTT with an LSTM whose (h, c) tuple is detached by a generator after every step.
import torch
import torch.nn as nn

torch.manual_seed(0)
lstm = nn.LSTM(4, 8, batch_first=True)
head = nn.Linear(8, 4)
opt = torch.optim.Adam([*lstm.parameters(), *head.parameters()], lr=1e-3)
stream = torch.randn(3, 25, 4)

state = None
for start in range(0, 24, 6):
    chunk = stream[:, start:start + 6]
    target = stream[:, start + 1:start + 7]
    out, state = lstm(chunk, state)
    loss = (head(out) - target).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    state = tuple(s.detach() for s in state)
