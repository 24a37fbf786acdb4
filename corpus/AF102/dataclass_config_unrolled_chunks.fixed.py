# AF102: GRUCell unrolled over each chunk with a backward per chunk; `state` never reset between chunks.
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class Config:
    features: int = 3
    width: int = 8
    chunk: int = 4
    chunks: int = 3
    lr: float = 0.05


cfg = Config()
torch.manual_seed(0)
cell = nn.GRUCell(cfg.features, cfg.width)
decoder = nn.Linear(cfg.width, cfg.features)
optimizer = torch.optim.SGD(list(cell.parameters()) + list(decoder.parameters()), lr=cfg.lr)

sequence = torch.randn(cfg.chunk * cfg.chunks + 1, 2, cfg.features)
state = torch.zeros(2, cfg.width)
for k in range(cfg.chunks):
    chunk_loss = 0.0
    state = state.detach()
    for t in range(k * cfg.chunk, (k + 1) * cfg.chunk):
        state = cell(sequence[t], state)
        chunk_loss = chunk_loss + (decoder(state) - sequence[t + 1]).pow(2).mean()
    optimizer.zero_grad()
    chunk_loss.backward()
    optimizer.step()
