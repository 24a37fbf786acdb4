# AF103: a slice of a sigmoid output is overwritten (`probs[:, 0] = 1.0`); reported without a fix (no exact out-of-place form).
import torch
import torch.nn as nn


class MultiLabel(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 4)

    def forward(self, x):
        probs = torch.sigmoid(self.fc(x))
        probs[:, 0] = 1.0
        return probs


torch.manual_seed(0)
model = MultiLabel()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(2):
    target = torch.randint(0, 2, (8, 4)).float()
    loss = nn.functional.binary_cross_entropy(model(torch.randn(8, 6)), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
