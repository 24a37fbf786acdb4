# AF102: the style code is encoded once, before the training loop, and every step's loss goes through it; the first backward() frees the encoder's graph and the second step fails.
import torch
import torch.nn as nn

torch.manual_seed(0)
style_encoder = nn.Linear(6, 4)
decoder = nn.Linear(4, 4)
params = list(style_encoder.parameters()) + list(decoder.parameters())
optimizer = torch.optim.Adam(params, lr=1e-3)
style = style_encoder(torch.randn(1, 6))

for step in range(3):
    content = torch.randn(8, 4)
    optimizer.zero_grad()
    loss = (decoder(content) + style).pow(2).mean()
    loss.backward()
    optimizer.step()
    print(step, loss.item())
