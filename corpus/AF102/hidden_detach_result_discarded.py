# AF102: the recurrent state is meant to be detached at the top of each iteration, but `hidden.detach()` on the one-line `if` returns a detached copy and throws it away; the next forward reads the old graph, which the previous backward() freed.
import torch
import torch.nn as nn

torch.manual_seed(0)
rnn = nn.RNN(input_size=1, hidden_size=4, batch_first=True)
head = nn.Linear(4, 1)
optimizer = torch.optim.SGD([*rnn.parameters(), *head.parameters()], lr=0.1)


def train(steps):
    hidden = None
    for step in range(steps):
        data, target = torch.randn(2, 5, 1), torch.randn(2, 5, 1)
        optimizer.zero_grad()
        if hidden is not None: hidden.detach()
        out, hidden = rnn(data, hidden)
        loss = (head(out) - target).pow(2).mean()
        loss.backward()
        optimizer.step()
        print(step, round(loss.item(), 4))


train(3)
