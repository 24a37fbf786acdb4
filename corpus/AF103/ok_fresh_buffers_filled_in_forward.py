# OK: forward fills freshly created tensors in place (torch.zeros then outputs[:, t] = h, a ones_like mask, a clone).
import torch
import torch.nn as nn


class Unroller(nn.Module):
    def __init__(self, n_in=3, n_hidden=5):
        super().__init__()
        self.cell = nn.GRUCell(n_in, n_hidden)
        self.n_hidden = n_hidden

    def forward(self, seq):
        steps, batch, _ = seq.shape
        outputs = torch.zeros(steps, batch, self.n_hidden)
        h = seq.new_zeros(batch, self.n_hidden)
        for t in range(steps):
            h = self.cell(seq[t], h)
            outputs[t] = h
        keep = torch.ones_like(outputs)
        keep[0] = 0.5
        scaled = outputs.clone()
        scaled.mul_(keep)
        return scaled.sum(0)


torch.manual_seed(0)
model = Unroller()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(2):
    loss = model(torch.randn(4, 2, 3)).abs().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
