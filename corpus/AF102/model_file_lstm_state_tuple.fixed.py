# AF102: a model file on its own: the LSTM's (h, c) pair is kept on the module between forward calls, starting as None; the loop that trains it is elsewhere, so the pair is detached entry by entry once it exists.
# autofix-test: verdict=inconclusive unsafe-fixes
import torch
import torch.nn as nn


class Narrator(nn.Module):
    def __init__(self, vocab=20, width=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.lstm = nn.LSTM(width, width, batch_first=True)
        self.proj = nn.Linear(width, vocab)
        self.memory = None

    def forward(self, tokens):
        if self.memory is not None:
            self.memory = tuple(t.detach() for t in self.memory)
        out, self.memory = self.lstm(self.embed(tokens), self.memory)
        return self.proj(out)


if __name__ == "__main__":
    print(Narrator()(torch.randint(0, 20, (2, 5))).shape)
