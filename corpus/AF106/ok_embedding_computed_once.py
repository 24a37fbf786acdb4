# Not AF106: a table computed once before the loop is part of every iteration's graph.
import torch
from torch import nn

torch.manual_seed(29)
encoder = nn.Linear(10, 4)
vocabulary = torch.randn(7, 10)
table = encoder(vocabulary)
scorer = nn.Linear(4, 1)
optimizer = torch.optim.SGD(scorer.parameters(), lr=0.1)
for step in range(4):
    picks = torch.randint(0, 7, (5,))
    loss = scorer(table[picks]).pow(2).mean()
    optimizer.zero_grad()
    loss.backward(retain_graph=True)
    optimizer.step()
