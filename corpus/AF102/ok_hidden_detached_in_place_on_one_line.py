# ok: the recurrent state is detached in place at the top of each iteration, on a one-line `if`; nothing of the previous iteration's graph is carried into this one.
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
        if hidden is not None: hidden.detach_()
        out, hidden = rnn(data, hidden)
        loss = (head(out) - target).pow(2).mean()
        loss.backward()
        optimizer.step()
        print(step, round(loss.item(), 4))


train(3)
