# The recurrent cell keeps its state on the module and offers `clear_state()`; the trainer's step
# function calls it before running the sequence and back-propagates once after it (full BPTT per
# sequence). The step's loop is its caller's: every call starts from a state with no graph.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Tracker(nn.Module):
    def __init__(self, width=6):
        super().__init__()
        self.cell = nn.RNNCell(2, width)
        self.out = nn.Linear(width, 2)
        self.state = None

    def clear_state(self):
        self.state = None

    def forward(self, point):
        self.state = self.cell(point, self.state)
        return self.out(self.state)


def fit_sequence(model, opt, track):
    model.clear_state()
    loss = 0.0
    for t in range(track.shape[0] - 1):
        loss = loss + (model(track[t]) - track[t + 1]).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item()


tracker = Tracker()
optimizer = torch.optim.Adam(tracker.parameters(), lr=1e-2)
for epoch in range(3):
    print(epoch, fit_sequence(tracker, optimizer, torch.randn(7, 4, 2)))
