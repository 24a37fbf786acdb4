# AF106 with AF102: both see the carried state; their fixes agree (detach once, then the flag is needless).
# autofix-test: select=AF102,AF106
# autofix-test: unsafe-fixes
import torch
from torch import nn

torch.manual_seed(11)
lstm = nn.LSTM(2, 6)
head = nn.Linear(6, 1)
optimizer = torch.optim.SGD([*lstm.parameters(), *head.parameters()], lr=0.05)
state = (torch.zeros(1, 3, 6), torch.zeros(1, 3, 6))
for window in torch.randn(5, 4, 3, 2):
    output, state = lstm(window, state)
    loss = head(output[-1]).abs().mean()
    optimizer.zero_grad()
    loss.backward(retain_graph=True)
    optimizer.step()
