# AF107: a noise-augmentation layer adds Gaussian noise to the batch it is handed with +=, so the caller's batch changes too.
# autofix-test: unsafe-fixes
import torch
import torch.nn as nn


class JitterThenClassify(nn.Module):
    def __init__(self, features: int, classes: int, sigma: float = 0.05):
        super().__init__()
        self.sigma = sigma
        self.classifier = nn.Linear(features, classes)

    def forward(self, batch: torch.Tensor) -> torch.Tensor:
        batch = batch + self.sigma * torch.randn_like(batch)
        return self.classifier(batch)


torch.manual_seed(0)
net = JitterThenClassify(10, 3)
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
for epoch in range(3):
    inputs = torch.randn(16, 10)
    targets = torch.randint(0, 3, (16,))
    loss = nn.functional.cross_entropy(net(inputs), targets)
    opt.zero_grad()
    loss.backward()
    opt.step()
    # The caller reuses its batch after the forward: it expects the clean inputs.
    print(epoch, float(loss), float(inputs.abs().mean()))
