# AF105: every step's output dict (loss and logits, both with graphs) is kept for the epoch summary.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(10, 32), nn.Tanh(), nn.Linear(32, 4))

    def step(self, batch):
        words, tags = batch
        logits = self.body(words)
        loss = F.cross_entropy(logits, tags)
        return {"loss": loss, "logits": logits}


tagger = Tagger()
opt = torch.optim.Adam(tagger.parameters(), lr=1e-3)
epoch_outputs = []
for i in range(5):
    batch = torch.randn(8, 10), torch.randint(0, 4, (8,))
    out = tagger.step(batch)
    opt.zero_grad()
    out["loss"].backward()
    opt.step()
    epoch_outputs.append({k: v.detach() for k, v in out.items()})
print(sum(o["loss"].item() for o in epoch_outputs) / len(epoch_outputs))
