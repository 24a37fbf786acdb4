# AF102: `import torch as th`; the recurrent state lives on the model object (`model.memory`).
import torch as th
from torch import nn

th.manual_seed(0)


class Memory(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.RNNCell(4, 4)
        self.memory = th.zeros(3, 4)


model = Memory()
optimizer = th.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    x = th.randn(3, 4)
    model.memory = model.cell(x, model.memory)
    loss = model.memory.square().mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
