# ok: a stack is built in a loop with ReLU(inplace=True) between its Linear layers and a Linear last; a Linear does not save its output, so adding onto it in place is fine.
import torch
import torch.nn as nn


class Mixer(nn.Module):
    def __init__(self, width: int, depth: int):
        super().__init__()
        layers = [nn.Linear(width, width)]
        for _ in range(depth):
            layers.append(nn.ReLU(inplace=True))
            layers.append(nn.Linear(width, width))
        self.stack = nn.Sequential(*layers)

    def forward(self, tokens):
        mixed = self.stack(tokens)
        mixed += tokens
        return mixed.mean()


torch.manual_seed(0)
mixer = Mixer(5, 2)
opt = torch.optim.SGD(mixer.parameters(), lr=0.1)
for _ in range(2):
    loss = mixer(torch.randn(3, 5)) ** 2
    opt.zero_grad()
    loss.backward()
    opt.step()
