# doctor: no finding: the data has six features where the model expects eight (a shape mismatch no rule explains).
import torch
import torch.nn.functional as F

from model import build

torch.manual_seed(0)
inputs, labels = torch.randn(16, 6), torch.randint(0, 2, (16,))
model = build()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = F.cross_entropy(model(inputs), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
