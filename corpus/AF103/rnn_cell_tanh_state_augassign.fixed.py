# AF103: a hand-written RNN adds its input projection to the tanh state with +=; tanh's backward needs the state.
import torch
import torch.nn as nn


class ElmanCell(nn.Module):
    def __init__(self, n_in: int, n_hidden: int):
        super().__init__()
        self.w_in = nn.Linear(n_in, n_hidden)
        self.w_rec = nn.Linear(n_hidden, n_hidden)

    def forward(self, x_t, h_prev):
        h = torch.tanh(self.w_rec(h_prev))
        h = h + self.w_in(x_t)
        return h


torch.manual_seed(0)
cell = ElmanCell(5, 10)
readout = nn.Linear(10, 1)
params = list(cell.parameters()) + list(readout.parameters())
optimizer = torch.optim.RMSprop(params, lr=1e-3)
step = 0
while step < 3:
    seq = torch.randn(7, 3, 5)
    h = torch.zeros(3, 10)
    for x_t in seq:
        h = cell(x_t, h)
    loss = readout(h).abs().mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    step += 1
