# AF102: custom CharRNN returns (logits, hidden) of unknown shape; hidden is fed back every batch.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
text = torch.randint(0, 27, (8, 33))


class CharRNN(nn.Module):
    def __init__(self, vocab=27, width=24, layers=2):
        super().__init__()
        self.layers = layers
        self.width = width
        self.embed = nn.Embedding(vocab, width)
        self.lstm = nn.LSTM(width, width, num_layers=layers, batch_first=True)
        self.out = nn.Linear(width, vocab)

    def init_hidden(self, batch):
        zeros = torch.zeros(self.layers, batch, self.width)
        return zeros, zeros.clone()

    def forward(self, chars, hidden):
        features, hidden = self.lstm(self.embed(chars), hidden)
        return self.out(features), hidden


model = CharRNN()
optim = torch.optim.RMSprop(model.parameters(), lr=2e-3)
hidden = model.init_hidden(text.size(0))
for epoch in range(2):
    for pos in range(0, 32, 8):
        chunk, nxt = text[:, pos:pos + 8], text[:, pos + 1:pos + 9]
        hidden = tuple(t.detach() for t in hidden)
        logits, hidden = model(chunk, hidden)
        loss = F.cross_entropy(logits.transpose(1, 2), nxt)
        optim.zero_grad()
        loss.backward()
        optim.step()
    print("epoch", epoch, loss.item())
