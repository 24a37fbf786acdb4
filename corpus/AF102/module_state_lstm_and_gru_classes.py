# AF102: two recurrent modules in one file both keep their state in `self.hidden`, one built on an
# LSTM (whose state is an (h, c) tuple) and one on a GRU (a tensor). Each forward reads the previous
# call's state, and the loop back-propagates every output: the second backward raises. The detach
# must match each module's state: a tuple for the LSTM, a tensor for the GRU.
import torch
import torch.nn as nn


class LSTMTagger(nn.Module):
    def __init__(self, features, hidden, project=True):
        super().__init__()
        if project:
            self.input = nn.Linear(features, hidden)
            self.rnn = nn.LSTM(hidden, hidden, batch_first=True)
        else:
            self.rnn = nn.LSTM(features, hidden, batch_first=True)
        self.project = project
        self.hidden = None

    def forward(self, x):
        if self.project:
            x = self.input(x)
        output, self.hidden = self.rnn(x, self.hidden)
        return output


class GRUTagger(nn.Module):
    def __init__(self, features, hidden):
        super().__init__()
        self.rnn = nn.GRU(features, hidden, batch_first=True)
        self.hidden = None

    def forward(self, x):
        output, self.hidden = self.rnn(x, self.hidden)
        return output


torch.manual_seed(16)
lstm_tagger, gru_tagger = LSTMTagger(3, 5), GRUTagger(3, 5)
optimizer = torch.optim.SGD([*lstm_tagger.parameters(), *gru_tagger.parameters()], lr=0.1)
for _ in range(3):
    batch = torch.randn(2, 4, 3)
    loss = lstm_tagger(batch).pow(2).mean() + gru_tagger(batch).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("trained")
