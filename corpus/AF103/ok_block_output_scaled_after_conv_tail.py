# ok: a custom block activates in place first and ends in a convolution, whose output nothing saved; scaling that output in place is fine.
import torch
import torch.nn as nn


class PreAct(nn.Module):
    def __init__(self, c: int):
        super().__init__()
        self.norm = nn.BatchNorm1d(c)
        self.act = nn.ReLU(inplace=True)
        self.conv = nn.Conv1d(c, c, 3, padding=1)

    def forward(self, x):
        return self.conv(self.act(self.norm(x)))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = PreAct(4)
        self.head = nn.Linear(4, 1)

    def forward(self, x):
        y = self.block(x)
        y *= 0.5
        return self.head(y.mean(dim=-1))


torch.manual_seed(0)
model = Model()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(2):
    loss = model(torch.randn(3, 4, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
