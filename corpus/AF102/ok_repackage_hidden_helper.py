# OK: word language model detaches with a local `repackage_hidden` helper before each chunk.
import torch
import torch.nn as nn

torch.manual_seed(0)


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


class LanguageModel(nn.Module):
    def __init__(self, vocab=40, width=20):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.rnn = nn.LSTM(width, width)
        self.proj = nn.Linear(width, vocab)

    def forward(self, tokens, hidden):
        out, hidden = self.rnn(self.embed(tokens), hidden)
        return self.proj(out), hidden


data = torch.randint(0, 40, (33, 4))
model = LanguageModel()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
hidden = (torch.zeros(1, 4, 20), torch.zeros(1, 4, 20))
for i in range(0, 32, 8):
    source, target = data[i:i + 8], data[i + 1:i + 9]
    hidden = repackage_hidden(hidden)
    model.zero_grad()
    output, hidden = model(source, hidden)
    loss = nn.functional.cross_entropy(output.view(-1, 40), target.reshape(-1))
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
    optimizer.step()
