# ok: the model may be wrapped for data parallelism and is unwrapped with `.module`; a method of the
# model turns sizes and a duration into a rate (a Python float), and the smoothed rate holds no graph.
import time

import torch
import torch.nn as nn


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(20, 12)
        self.out = nn.Linear(12, 3)

    def forward(self, tokens):
        return self.out(self.embed(tokens).mean(dim=1))

    def tokens_per_second(self, tokens, seconds):
        return tokens / max(seconds, 1e-6)


torch.manual_seed(0)
model = Tagger()
parallel = torch.cuda.device_count() > 1
if parallel:
    model = nn.DataParallel(model)
bare = model.module if parallel else model
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
rate = -1.0
for step in range(5):
    began = time.time()
    tokens, tags = torch.randint(0, 20, (4, 6)), torch.randint(0, 3, (4,))
    loss = nn.functional.cross_entropy(model(tokens), tags)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    current = bare.tokens_per_second(tokens.numel(), time.time() - began)
    rate = current if rate == -1.0 else 0.9 * rate + 0.1 * current
torch.save(bare.state_dict(), "/dev/null")
print(f"throughput {rate:.1f} tokens/s")
