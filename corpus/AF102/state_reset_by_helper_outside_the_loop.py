# AF102: a helper without a backward of its own (`start_episode`) re-creates the module's hidden state, but the
# training loop calls it only once, before the loop, and back-propagates after every step: the second
# backward() walks into the graph the first one freed. Because the helper may also run between
# steps in other code (then each sequence is trained whole), the detach-in-forward fix is unsafe.
# autofix-test: unsafe-fixes
import torch
import torch.nn as nn

torch.manual_seed(0)


class Recurrent(nn.Module):
    def __init__(self, width=6):
        super().__init__()
        self.cell = nn.GRUCell(3, width)
        self.head = nn.Linear(width, 1)
        self.h = None

    def forward(self, x):
        self.h = self.cell(x, self.h)
        return self.head(self.h)


class Agent:
    def __init__(self):
        self.net = Recurrent()

    def start_episode(self):
        self.net.h = None


agent = Agent()
opt = torch.optim.SGD(agent.net.parameters(), lr=0.05)
agent.start_episode()
for step in range(4):
    loss = agent.net(torch.randn(2, 3)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, loss.item())
