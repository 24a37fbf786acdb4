# doctor: AF103 at blocks.py: the block's nn.Sequential ends in ReLU(inplace=True), and `out += x` writes over the output ReLU saved.
import torch
import torch.nn as nn

from blocks import ResidualBlock

CONFIG = {"activation": "relu", "inplace": True}

torch.manual_seed(0)
inputs = torch.randn(32, 8)
labels = torch.randint(0, 3, (32,))
model = nn.Sequential(ResidualBlock(8, CONFIG), ResidualBlock(8, CONFIG), nn.Linear(8, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.CrossEntropyLoss()
for epoch in range(4):
    for start in range(0, 32, 8):
        logits = model(inputs[start:start + 8])
        loss = criterion(logits, labels[start:start + 8])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print("epoch", epoch, loss.item())
