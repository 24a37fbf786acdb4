# OK: a model file on its own: each cell keeps its hidden state across calls (one call per time step) and offers detach_hidden(); the stack holding the cells only hands that reset on to its own caller, which lives in another file and decides when a sequence ends.
import torch
import torch.nn as nn


class ElmanCell(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.mix = nn.Linear(2 * width, width)
        self.width = width
        self.state = [None]

    def begin(self, batch):
        if self.state[0] is None or self.state[0].size(0) != batch:
            self.state[0] = torch.zeros(batch, self.width)

    def detach_hidden(self):
        self.state[0] = self.state[0].detach()

    def forward(self, x):
        self.begin(x.size(0))
        self.state = [torch.tanh(self.mix(torch.cat([x, self.state[0]], dim=1)))]
        return self.state[0]


class CellStack(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.cells = nn.ModuleList([ElmanCell(width) for _ in range(depth)])

    def detach_hidden(self):
        for cell in self.cells:
            cell.detach_hidden()

    def forward(self, steps):
        outputs = []
        for x in steps:
            for cell in self.cells:
                x = cell(x)
            outputs.append(x)
        return torch.stack(outputs)
