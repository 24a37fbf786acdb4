# AF102: the attention layer keeps its keys and values across calls by default (`use_cache=True`), so every training step attends over the previous steps' keys, whose graph the previous backward() freed.
import torch
import torch.nn as nn

torch.manual_seed(0)


class CachedAttention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.query = nn.Linear(width, width)
        self.key = nn.Linear(width, width)
        self.value = nn.Linear(width, width)
        self.cached_keys = None
        self.cached_values = None

    def forward(self, x, use_cache=True):
        q, k, v = self.query(x), self.key(x), self.value(x)
        if use_cache:
            if self.cached_keys is not None:
                k = torch.cat([self.cached_keys, k], dim=1)
                v = torch.cat([self.cached_values, v], dim=1)
            self.cached_keys, self.cached_values = k, v
        weights = torch.softmax(q @ k.transpose(1, 2) / k.size(-1) ** 0.5, dim=-1)
        return weights @ v

    def reset_cache(self):
        self.cached_keys = self.cached_values = None


def generate(layer, prompt, steps):
    with torch.no_grad():
        layer.reset_cache()
        out = layer(prompt, use_cache=True)
        for _ in range(steps):
            out = layer(out[:, -1:], use_cache=True)
    return out


layer = CachedAttention(8)
optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
for step in range(3):
    loss = layer(torch.randn(2, 5, 8)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(step, round(loss.item(), 4))
