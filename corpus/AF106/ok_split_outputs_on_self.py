# Not AF106: one generator pass is split into two halves kept on `self`; the first half's loss keeps
# the graph because a later method back-propagates the second half through the same generator pass.
import torch
import torch.nn as nn


class PairTrainer(nn.Module):
    def __init__(self):
        super().__init__()
        self.gen = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 4))
        self.disc = nn.Linear(4, 1)
        self.gen_opt = torch.optim.Adam(self.gen.parameters(), lr=1e-3)

    def forward(self):
        both = torch.cat((self.real, torch.randn_like(self.real)), 0)
        self.encoded, self.random = torch.split(self.gen(both), self.real.size(0), dim=0)

    def update(self, real):
        self.real = real
        self.forward()
        self.gen_opt.zero_grad()
        self.backward_encoded()
        self.backward_random()
        self.gen_opt.step()

    def backward_encoded(self):
        loss = (self.encoded - self.real).pow(2).mean() - self.disc(self.encoded).mean()
        loss.backward(retain_graph=True)

    def backward_random(self):
        loss = -self.disc(self.random).mean()
        loss.backward()


torch.manual_seed(4)
model = PairTrainer()
for _ in range(3):
    model.update(torch.randn(3, 4))
print("trained")
