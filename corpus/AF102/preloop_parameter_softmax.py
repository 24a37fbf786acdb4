# AF102: mixing weights are taken from a learnable nn.Parameter once, before the loop (softmax keeps its output for backward); every step's loss goes through that one graph, so the second backward() fails.
import torch
import torch.nn as nn

torch.manual_seed(0)
logits = nn.Parameter(torch.zeros(4))
mixing = logits.softmax(dim=0)
experts = nn.Linear(5, 4)
optimizer = torch.optim.Adam([logits, *experts.parameters()], lr=1e-2)

for step in range(3):
    features = torch.randn(6, 5)
    optimizer.zero_grad()
    blended = (experts(features) * mixing).sum(dim=1)
    loss = (blended - 1.0).pow(2).mean()
    loss.backward()
    optimizer.step()
    print(step, loss.item())
