# AF103: the squashing function is configured in a base class in another file (sigmoid by default); the subclass clamps the squashed output in place, which sigmoid saved for backward.
import torch
import torch.nn as nn

from af103_helpers.heads import SigmoidHeadBase


class ClampedProbability(SigmoidHeadBase):
    def forward(self, features):
        prob = self.f_squash(self.linear(features))
        prob.clamp_(1e-4, 1.0 - 1e-4)
        return prob.squeeze(-1)


if __name__ == "__main__":
    torch.manual_seed(0)
    head = ClampedProbability(6)
    optimizer = torch.optim.SGD(head.parameters(), lr=0.1)
    for step in range(3):
        x, y = torch.randn(8, 6), torch.randint(0, 2, (8,)).float()
        loss = nn.functional.binary_cross_entropy(head(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(step, loss.item())
