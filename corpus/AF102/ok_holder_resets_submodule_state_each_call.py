# OK: the decoder keeps its recurrent state on itself and the attention caches its keys, but the
# model that owns both re-creates them at the start of every forward (`init_state`, `clear`), so
# each training step unrolls a fresh sequence and nothing crosses from one step into the next.
import torch
import torch.nn as nn


class StatefulDecoder(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.width = width
        self.cell = nn.GRUCell(width, width)
        self.state = None

    def init_state(self, batch):
        self.state = torch.zeros(batch, self.width)

    def forward(self, x):
        self.state = self.cell(x, self.state)
        return self.state


class KeyCache(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.proj = nn.Linear(width, width)
        self.keys = None

    def clear(self):
        self.keys = None

    def forward(self, query, memory):
        if self.keys is None:
            self.keys = torch.tanh(self.proj(memory))
        weights = torch.softmax((self.keys * query.unsqueeze(1)).sum(-1), dim=-1)
        return (weights.unsqueeze(-1) * memory).sum(1)


class Speller(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.decoder = StatefulDecoder(width)
        self.attend = KeyCache(width)

    def forward(self, memory, steps):
        self.decoder.init_state(memory.size(0))
        self.attend.clear()
        query = memory.mean(1)
        outputs = []
        for _ in range(steps):
            query = self.decoder(self.attend(query, memory))
            outputs.append(query)
        return torch.stack(outputs, 1)


torch.manual_seed(0)
model = Speller(8)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(4):
    memory = torch.randn(3, 5, 8)
    loss = model(memory, 4).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f}")
