# The recurrent Q-network keeps its hidden state on the module, but the learner's per-batch update
# re-creates it (`self.q.hidden = None`) before unrolling the episode and back-propagates once after
# the unroll: full back-propagation through time, one graph per call, nothing carried into the next.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class RecurrentQ(nn.Module):
    def __init__(self, d_in=3, width=8, actions=2):
        super().__init__()
        self.hidden = None
        self.embed = nn.Linear(d_in, width)
        self.cell = nn.GRUCell(width, width)
        self.head = nn.Linear(width, actions)

    def forward(self, obs):
        z = F.relu(self.embed(obs))
        self.hidden = self.cell(z, self.hidden)
        return self.head(self.hidden)


class Learner:
    def __init__(self):
        self.q = RecurrentQ()
        self.opt = torch.optim.SGD(self.q.parameters(), lr=0.1)

    def act(self, obs):
        with torch.no_grad():
            return self.q(obs).argmax(-1)

    def update(self, episode):
        self.q.hidden = None
        values = []
        for t in range(episode.shape[1]):
            values.append(self.q(episode[:, t]))
        loss = torch.stack(values, 1).pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()


learner = Learner()
for it in range(3):
    for t in range(4):
        learner.act(torch.randn(4, 3))
    print(it, learner.update(torch.randn(4, 5, 3)))
