# AF103: a custom block's forward ends in an in-place ReLU; the model scales the block's output with *=, overwriting the tensor ReLU saved.
import torch
import torch.nn as nn


class ConvAct(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.conv = nn.Conv1d(cin, cout, 3, padding=1)
        self.act = nn.ReLU(inplace=True)

    def forward(self, x):
        return self.act(self.conv(x))


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = ConvAct(2, 4)
        self.gain = nn.Parameter(torch.full((1, 4, 1), 0.5))
        self.out = nn.Linear(4, 3)

    def forward(self, signal):
        hidden = self.block(signal)
        hidden = hidden * self.gain
        return self.out(hidden.mean(dim=-1))


torch.manual_seed(0)
encoder = Encoder()
opt = torch.optim.SGD(encoder.parameters(), lr=0.1)
for _ in range(2):
    loss = nn.functional.cross_entropy(encoder(torch.randn(5, 2, 16)), torch.randint(0, 3, (5,)))
    opt.zero_grad()
    loss.backward()
    opt.step()
