# AF102: word-level GRU language model carries `hidden` across BPTT chunks without detaching it.
import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB, EMB, HID, BPTT, BATCH = 50, 16, 32, 8, 4


class WordLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, EMB)
        self.gru = nn.GRU(EMB, HID, batch_first=True)
        self.decoder = nn.Linear(HID, VOCAB)

    def forward(self, tokens, hidden):
        output, hidden = self.gru(self.embed(tokens), hidden)
        return self.decoder(output), hidden


corpus = torch.randint(0, VOCAB, (BATCH, 5 * BPTT + 1))
lm = WordLM()
optimizer = torch.optim.Adam(lm.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()

hidden = torch.zeros(1, BATCH, HID)
for start in range(0, corpus.size(1) - 1, BPTT):
    inputs = corpus[:, start:start + BPTT]
    targets = corpus[:, start + 1:start + 1 + BPTT]
    hidden = hidden.detach()
    logits, hidden = lm(inputs, hidden)
    loss = criterion(logits.reshape(-1, VOCAB), targets.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"chunk {start // BPTT}: loss {loss.item():.3f}")
