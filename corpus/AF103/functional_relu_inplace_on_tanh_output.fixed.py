# AF103: F.relu(..., inplace=True) on a tanh output that tanh's backward needs; the result gets a new name.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(10, 20)
        self.fc2 = nn.Linear(20, 3)

    def forward(self, inputs):
        squashed = torch.tanh(self.fc1(inputs))
        rectified = F.relu(squashed)
        return self.fc2(rectified)


torch.manual_seed(0)
enc = Encoder()
opt = torch.optim.SGD(enc.parameters(), lr=0.01)
for batch_idx, batch in enumerate(torch.randn(3, 4, 10)):
    opt.zero_grad()
    enc(batch).sum().backward()
    opt.step()
