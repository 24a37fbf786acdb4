# AF103: the layers of a refinement stack are appended in a loop, each pair ending in ReLU(inplace=True), then wrapped in nn.Sequential(*layers); the forward adds its input in place onto the stack's ReLU output.
import torch
import torch.nn as nn


class Refiner(nn.Module):
    def __init__(self, width: int, depth: int):
        super().__init__()
        layers = []
        for _ in range(depth):
            layers.append(nn.Linear(width, width))
            layers.append(nn.ReLU(inplace=True))
        self.stack = nn.Sequential(*layers)
        self.head = nn.Linear(width, 1)

    def forward(self, features):
        refined = self.stack(features)
        refined += features
        return self.head(refined)


torch.manual_seed(0)
refiner = Refiner(6, 3)
optimizer = torch.optim.Adam(refiner.parameters(), lr=1e-3)
for _ in range(3):
    x, y = torch.randn(10, 6), torch.randn(10, 1)
    loss = nn.functional.mse_loss(refiner(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
