# AF103: a scan over time steps assigns each updated step back into `state[:, t:t + 1]` after a linear layer read the previous step, a view of `state` that autograd saved; reported without a fix.
import torch
import torch.nn as nn


class StepScan(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.step = nn.Linear(features, features)

    def forward(self, x):
        state = torch.tanh(x).clone()
        for t in range(1, state.shape[1]):
            state[:, t:t + 1, :] = state[:, t:t + 1, :] + self.step(state[:, t - 1:t, :])
        return state.sum(dim=1)


torch.manual_seed(0)
model = StepScan(4)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(2):
    batch = torch.randn(3, 5, 4)
    loss = model(batch).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
