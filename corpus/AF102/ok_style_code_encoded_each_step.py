# ok: the style code is encoded inside the loop, so each step back-propagates through a graph of its own; a frozen reference code made under no_grad before the loop carries no graph.
import torch
import torch.nn as nn

torch.manual_seed(0)
style_encoder = nn.Linear(6, 4)
decoder = nn.Linear(4, 4)
params = list(style_encoder.parameters()) + list(decoder.parameters())
optimizer = torch.optim.Adam(params, lr=1e-3)
style_input = torch.randn(1, 6)
with torch.no_grad():
    reference = style_encoder(style_input)

for step in range(3):
    content = torch.randn(8, 4)
    optimizer.zero_grad()
    style = style_encoder(style_input)
    loss = (decoder(content) + style).pow(2).mean() + (style - reference).abs().mean()
    loss.backward()
    optimizer.step()
    print(step, loss.item())
