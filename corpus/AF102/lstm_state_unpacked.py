# AF102: LSTM `(h, c)` unpacked and fed back each step; backward every step walks into the freed graph.
import torch
import torch.nn as nn

torch.manual_seed(0)
seq_len, batch, n_in, n_hidden = 6, 3, 5, 12

encoder = nn.LSTM(n_in, n_hidden)
readout = nn.Linear(n_hidden, 1)
params = list(encoder.parameters()) + list(readout.parameters())
optimizer = torch.optim.SGD(params, lr=0.05)

h = torch.zeros(1, batch, n_hidden)
c = torch.zeros(1, batch, n_hidden)
for step in range(4):
    window = torch.randn(seq_len, batch, n_in)
    target = torch.randn(batch, 1)
    out, (h, c) = encoder(window, (h, c))
    loss = nn.functional.mse_loss(readout(out[-1]), target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(step, round(loss.item(), 4))
