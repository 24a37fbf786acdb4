# AF101: a weighted auxiliary loss back-propagated separately through the same forward pass.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 16)
        self.rnn = nn.GRU(16, 16, batch_first=True)
        self.tag = nn.Linear(16, 5)
        self.aux = nn.Linear(16, 50)

    def forward(self, tokens):
        hidden, _ = self.rnn(self.embed(tokens))
        return self.tag(hidden), self.aux(hidden)


torch.manual_seed(0)
net = Tagger()
optim = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
aux_weight = 0.5

for batch_idx in range(3):
    tokens = torch.randint(0, 50, (4, 7))
    tags = torch.randint(0, 5, (4, 7))
    optim.zero_grad()
    tag_logits, lm_logits = net(tokens)
    main = F.cross_entropy(tag_logits.reshape(-1, 5), tags.reshape(-1))
    lm = F.cross_entropy(lm_logits[:, :-1].reshape(-1, 50), tokens[:, 1:].reshape(-1))
    (aux_weight * lm + main).backward()
    optim.step()
    print(batch_idx, main.item(), lm.item())
