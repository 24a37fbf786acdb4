# ok: the recurrent cell's state is kept on the module but cut from the previous step's graph before the cell reads it (truncated BPTT), so each step back-propagates only its own graph.
import torch
import torch.nn as nn

torch.manual_seed(0)


class OnlineCell(nn.Module):
    def __init__(self, features=3, width=5):
        super().__init__()
        self.cell = nn.RNNCell(features, width)
        self.readout = nn.Linear(width, 1)
        self.state = torch.zeros(1, width)
        self.optimizer = torch.optim.SGD(self.parameters(), lr=0.05)

    def forward(self, x):
        self.state = self.cell(x, self.state.detach())
        return self.readout(self.state)

    def train_step(self, x, target):
        self.optimizer.zero_grad()
        loss = (self(x) - target).pow(2).mean()
        loss.backward()
        self.optimizer.step()
        return loss.item()


model = OnlineCell()
for step in range(4):
    print(step, model.train_step(torch.randn(1, 3), torch.randn(1, 1)))
