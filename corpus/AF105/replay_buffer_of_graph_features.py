# AF105: encoder features go into a replay list with their graph; every step samples old entries and back-propagates through them, but an earlier step's backward() already freed their graph. Whether the encoder should learn from replayed entries is the author's call, so no fix is offered.
import random

import torch
import torch.nn as nn

random.seed(0)
torch.manual_seed(0)
encoder = nn.Linear(4, 8)
critic = nn.Linear(8, 1)
optimizer = torch.optim.Adam(list(encoder.parameters()) + list(critic.parameters()), lr=1e-3)
replay = []
for step in range(6):
    features = encoder(torch.randn(1, 4))
    replay.append(features)
    batch = torch.cat(random.sample(replay, min(3, len(replay))))
    loss = critic(batch).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
