# AF102: a weight penalty computed once in __init__ from a parameter is stored on the module and added to every batch's loss; the first backward() frees its graph and the second one fails. Recomputing it in each call is the cure, so no fix is offered.
import torch
import torch.nn as nn

torch.manual_seed(0)


class PenalisedModel(nn.Module):
    def __init__(self, features=6, classes=3):
        super().__init__()
        self.embed = nn.Parameter(torch.randn(classes, features))
        self.penalty = 1e-3 * self.embed.pow(2).sum()

    def forward(self, x):
        return x @ self.embed.t()


model = PenalisedModel()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    x, y = torch.randn(8, 6), torch.randint(0, 3, (8,))
    loss = nn.functional.cross_entropy(model(x), y) + model.penalty
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
