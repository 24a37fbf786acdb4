# AF107: a regressor clamps the features it receives with clamp_() inside forward; the caller's feature tensor is clipped as a side effect.
# autofix-test: unsafe-fixes
import torch
import torch.nn as nn


class RobustRegressor(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(width, 16), nn.Tanh(), nn.Linear(16, 1))

    def forward(self, feats):
        feats.clamp_(-2.0, 2.0)
        return self.body(feats).squeeze(-1)


torch.manual_seed(1)
model = RobustRegressor(5)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for it in range(4):
    x = 3.0 * torch.randn(32, 5)
    y = x.sum(dim=1)
    prediction = model(x)
    loss = ((prediction - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
