# doctor: AF102 at streaming.py: the model keeps `self.state` across calls, so each backward reaches the previous one's freed graph.
import torch
import torch.nn.functional as F

from streaming import StreamingGRU

torch.manual_seed(0)
signal = torch.randn(12, 4, 6)
target = signal.sum(dim=2, keepdim=True)[..., :1]

model = StreamingGRU()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
for t in range(signal.size(0)):
    prediction = model(signal[t])
    loss = F.mse_loss(prediction, target[t])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("final loss", loss.item())
