# AF102 (no fix): each cell keeps its hidden state across calls and the stack offers detach_hidden(), but the training loop in this file never calls it: the second batch's forward starts from the first batch's state, whose graph the first backward() freed.
import torch
import torch.nn as nn

torch.manual_seed(0)


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


model = CellStack(width=6, depth=2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for batch in range(3):
    sequence = torch.randn(5, 4, 6)
    loss = model(sequence).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(batch, round(loss.item(), 4))
