# AF102: the trainer re-creates the Q-network's hidden state once per call of train(), but
# back-propagates after every time step inside it: the second step's backward() walks into the
# graph the first one freed, through the hidden state the module keeps on self.
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

    def train(self, episode):
        self.q.hidden = None
        for t in range(episode.shape[1]):
            loss = self.q(episode[:, t]).pow(2).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
        return loss.item()


learner = Learner()
for it in range(3):
    print(it, learner.train(torch.randn(4, 5, 3)))
