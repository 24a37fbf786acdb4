# AF107: a denoising module adds noise to its input with +=; the caller's input requires grad (saliency), a leaf.
# autofix-test: unsafe-fixes
import torch
import torch.nn as nn


class NoisyInput(nn.Module):
    def __init__(self, sigma: float, dim: int):
        super().__init__()
        self.sigma = sigma
        self.net = nn.Linear(dim, 2)

    def forward(self, x: torch.Tensor, noise: torch.Tensor) -> torch.Tensor:
        x = x + self.sigma * noise
        return self.net(x)


def saliency_step(model, images, labels, optimizer):
    images.requires_grad_(True)
    noise = torch.randn_like(images)
    loss = nn.functional.cross_entropy(model(images, noise), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return images.grad.abs().mean()


torch.manual_seed(0)
model = NoisyInput(0.1, 6)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(3):
    saliency_step(model, torch.randn(5, 6), torch.randint(0, 2, (5,)), optimizer)
