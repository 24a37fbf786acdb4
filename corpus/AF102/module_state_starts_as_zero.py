# AF102: the module's running memory is the number 0 after __init__ and a graph-carrying tensor after each forward; the next step's backward() reaches the freed graph. Reported without a fix: `self.memory.detach()` as forward starts would raise on the first call, where it is still an int.
import torch
import torch.nn as nn


class Accumulator(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.memory = 0

    def forward(self, x):
        self.memory = torch.sigmoid(self.proj(x) + self.memory)
        return self.memory.sum(dim=1)


torch.manual_seed(0)
model = Accumulator()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(3):
    optimizer.zero_grad()
    loss = model(torch.randn(2, 4)).pow(2).mean()
    loss.backward()
    optimizer.step()
    print(step, loss.item())
