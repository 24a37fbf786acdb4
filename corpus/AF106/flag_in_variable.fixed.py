# AF106: the flag comes from a variable that is always True; the graph is still never re-used.
import torch
from torch import nn

torch.manual_seed(4)
keep_graph = True
encoder = nn.Sequential(nn.Linear(12, 12), nn.Sigmoid(), nn.Linear(12, 4))
decoder = nn.Linear(4, 12)
params = list(encoder.parameters()) + list(decoder.parameters())
optimizer = torch.optim.SGD(params, lr=0.2)

for step in range(6):
    batch = torch.rand(16, 12)
    code = encoder(batch)
    reconstruction = decoder(code)
    loss = (reconstruction - batch).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
