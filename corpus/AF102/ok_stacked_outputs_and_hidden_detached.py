# ok: the same chunked regression, but the hidden state handed to the next chunk is detached first (truncated BPTT), so each backward() walks only its own chunk's graph.
import torch
import torch.nn as nn


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.GRU(input_size=1, hidden_size=8, batch_first=True)
        self.head = nn.Linear(8, 1)

    def forward(self, x, state):
        seq, state = self.cell(x, state)
        steps = [self.head(seq[:, t, :]) for t in range(seq.size(1))]
        return torch.stack(steps, dim=1), state


torch.manual_seed(0)
model = Regressor()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
state = None
for chunk in range(4):
    t = torch.linspace(chunk, chunk + 1, 10).view(1, 10, 1)
    prediction, state = model(torch.sin(t), state)
    state = state.detach()
    loss = (prediction - torch.cos(t)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(chunk, loss.item())
