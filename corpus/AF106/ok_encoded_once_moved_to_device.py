# OK: the features are computed once by the encoder before the loop and moved with `.to(device)`; every iteration's backward() walks the encoder's graph again, so retain_graph=True is needed.
import torch
import torch.nn as nn

device = torch.device("cpu")

torch.manual_seed(0)
encoder = nn.Linear(4, 8)
heads = [nn.Linear(8, 1) for _ in range(3)]
optimizer = torch.optim.SGD([*encoder.parameters(), *(p for h in heads for p in h.parameters())], lr=0.1)
features = torch.tanh(encoder(torch.randn(16, 4))).to(device)
optimizer.zero_grad()
for head in heads:
    loss = head(features).pow(2).mean()
    loss.backward(retain_graph=True)
optimizer.step()
print("done")
