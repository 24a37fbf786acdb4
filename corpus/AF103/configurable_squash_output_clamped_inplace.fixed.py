# AF103: a probability head takes its squashing function as a constructor argument (sigmoid by default) and clamps the result in place; sigmoid saved that result for backward.
import torch
import torch.nn as nn


class ProbabilityHead(nn.Module):
    def __init__(self, width: int, f_squash=torch.sigmoid, eps: float = 1e-4):
        super().__init__()
        self.linear = nn.Linear(width, 1)
        self.f_squash = f_squash
        self.eps = eps

    def forward(self, features):
        prob = self.f_squash(self.linear(features))
        prob = prob.clamp(self.eps, 1.0 - self.eps)
        return prob.squeeze(-1)


torch.manual_seed(0)
head = ProbabilityHead(7)
opt = torch.optim.SGD(head.parameters(), lr=0.1)
for _ in range(2):
    x, y = torch.randn(9, 7), torch.randint(0, 2, (9,)).float()
    loss = nn.functional.binary_cross_entropy(head(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
