# AF102: an LSTM's (h, c) kept on the module across calls; the caller's loop back-propagates every output.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Narrator(nn.Module):
    def __init__(self, vocab=20, width=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.lstm = nn.LSTM(width, width, batch_first=True)
        self.proj = nn.Linear(width, vocab)
        self.state = (torch.zeros(1, 3, width), torch.zeros(1, 3, width))

    def forward(self, tokens):
        self.state = tuple(t.detach() for t in self.state)
        features, self.state = self.lstm(self.embed(tokens), self.state)
        return self.proj(features)


narrator = Narrator()
optimizer = torch.optim.SGD(narrator.parameters(), lr=0.1)
stream = torch.randint(0, 20, (3, 41))
for start in range(0, 40, 10):
    logits = narrator(stream[:, start:start + 10])
    loss = nn.functional.cross_entropy(logits.reshape(-1, 20), stream[:, start + 1:start + 11].reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(loss.item())
