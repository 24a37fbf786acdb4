# ok: the temperature parameter is clamped in place, but under torch.no_grad() (and its data in a helper), which autograd allows.
import torch
import torch.nn as nn


class ScaledScorer(nn.Module):
    def __init__(self, d=4, classes=3):
        super().__init__()
        self.proj = nn.Linear(d, classes)
        self.temperature = nn.Parameter(torch.ones(1))

    def keep_in_range(self):
        self.temperature.data.clamp_(0.05, 20.0)

    def forward(self, x):
        with torch.no_grad():
            self.temperature.clamp_(0.05, 20.0)
        return self.proj(x) / self.temperature


torch.manual_seed(0)
scorer = ScaledScorer()
opt = torch.optim.SGD(scorer.parameters(), lr=0.1)
loss_fn = nn.CrossEntropyLoss()
for _ in range(3):
    loss = loss_fn(scorer(torch.randn(5, 4)), torch.randint(0, 3, (5,)))
    opt.zero_grad()
    loss.backward()
    opt.step()
    scorer.keep_in_range()
