# OK: seq2seq decoder feeds back the argmax token (no graph) and back-propagates once per sequence.
import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB = 12
embed = nn.Embedding(VOCAB, 8)
decoder = nn.GRUCell(8, 16)
out_proj = nn.Linear(16, VOCAB)
params = [*embed.parameters(), *decoder.parameters(), *out_proj.parameters()]
optimizer = torch.optim.Adam(params, lr=1e-3)

for batch in range(3):
    targets = torch.randint(0, VOCAB, (6, 4))
    token = torch.zeros(4, dtype=torch.long)
    hidden = torch.zeros(4, 16)
    loss = 0.0
    for t in range(targets.size(0)):
        hidden = decoder(embed(token), hidden)
        logits = out_proj(hidden)
        loss = loss + nn.functional.cross_entropy(logits, targets[t])
        token = logits.argmax(dim=-1)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
