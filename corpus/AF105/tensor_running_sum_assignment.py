# AF105: `running = running + loss` keeps a tensor total alive with every step's graph.
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Linear(12, 4)
decoder = nn.Linear(4, 12)
opt = torch.optim.Adam([*encoder.parameters(), *decoder.parameters()], lr=1e-3)

running = torch.zeros(())
for it in range(8):
    batch = torch.randn(10, 12)
    recon = decoder(torch.tanh(encoder(batch)))
    loss = ((recon - batch) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    running = running + loss
    if (it + 1) % 4 == 0:
        print("avg over 4:", (running / 4).item())
        running = torch.zeros(())
