# OK: saliency maps: backward() on the input in a loop with no optimizer step at all.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 4)).eval()
saliency = []
for sample in torch.randn(3, 8):
    x = sample.unsqueeze(0).requires_grad_(True)
    score = model(x).max()
    model.zero_grad()
    score.backward()
    saliency.append(x.grad.abs().squeeze(0).detach())
print(torch.stack(saliency).shape)
