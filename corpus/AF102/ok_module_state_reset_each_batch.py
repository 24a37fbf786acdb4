# The module keeps its state on self, but the loop re-creates it with reset_state() before every batch.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Tracker(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.cell = nn.GRUCell(2, width)
        self.out = nn.Linear(width, 2)
        self.width = width
        self.h = None

    def reset_state(self, batch):
        self.h = torch.zeros(batch, self.width)

    def forward(self, steps):
        preds = []
        for step in steps:
            self.h = self.cell(step, self.h)
            preds.append(self.out(self.h))
        return torch.stack(preds)


tracker = Tracker()
opt = torch.optim.Adam(tracker.parameters(), lr=5e-3)
for batch in range(4):
    tracks = torch.randn(5, 6, 2)
    tracker.reset_state(6)
    pred = tracker(tracks[:-1])
    loss = (pred - tracks[1:]).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(loss.item())
