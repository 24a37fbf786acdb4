# AF102: a recurrent cell keeps its state on the module (a tensor from __init__, replaced by the cell's output on every forward); the class's own train_step back-propagates each output, so the second step reaches the graph the first one freed.
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
        self.state = self.cell(x, self.state)
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
