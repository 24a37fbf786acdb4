# AF103: the sequence output is taken as `self.rnn(x)[0]` and rescaled with mul_(); the LSTM's backward reads that output.
import torch
import torch.nn as nn


class Tagger(nn.Module):
    def __init__(self, vocab=20, d=8, tags=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.rnn = nn.LSTM(d, d, batch_first=True)
        self.tag = nn.Linear(d, tags)

    def forward(self, ids):
        feats = self.rnn(self.embed(ids))[0]
        feats.mul_(0.5)
        return self.tag(feats)


torch.manual_seed(0)
tagger = Tagger()
opt = torch.optim.Adam(tagger.parameters(), lr=1e-3)
loss_fn = nn.CrossEntropyLoss()
for _ in range(3):
    ids = torch.randint(0, 20, (3, 6))
    gold = torch.randint(0, 4, (3, 6))
    scores = tagger(ids)
    loss = loss_fn(scores.reshape(-1, 4), gold.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
