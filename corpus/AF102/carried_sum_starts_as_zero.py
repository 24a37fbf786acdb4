# AF102: a running context starts as the Python number 0 and becomes a tensor carrying the previous step's graph; backward() each step reaches the freed graph. Reported without a fix: `ctx.detach()` at the top of the loop would raise on the first iteration, where ctx is still an int.
import torch
import torch.nn as nn

torch.manual_seed(0)
mixer = nn.Linear(4, 4)
optimizer = torch.optim.SGD(mixer.parameters(), lr=0.05)
ctx = 0
for step in range(3):
    ctx = torch.tanh(mixer(torch.randn(2, 4)) + ctx)
    loss = ctx.pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(step, loss.item())
