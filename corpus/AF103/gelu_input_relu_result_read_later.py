# AF103: F.relu(hidden, inplace=True) on a value GELU saved, and `hidden` is read again: the fix rebinds both names.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Mixer(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.up = nn.Linear(d, 2 * d)
        self.down = nn.Linear(2 * d, d)

    def forward(self, x):
        hidden = self.up(x)
        smooth = F.gelu(hidden)
        sharp = F.relu(hidden, inplace=True)
        return self.down(smooth + sharp + hidden)


torch.manual_seed(0)
mixer = Mixer()
opt = torch.optim.Adam(mixer.parameters(), lr=1e-3)
for _ in range(3):
    loss = mixer(torch.randn(6, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
