# AF103: a tower stacks projection and gate layers built in a loop, the gate block coming from another file of the project; the stack ends in that gate's sigmoid output, which the residual is then added onto in place.
import torch
import torch.nn as nn

from af103_helpers.gates import SigmoidGate


class GateTower(nn.Module):
    def __init__(self, width=4, depth=2):
        super().__init__()
        layers = []
        for _ in range(depth):
            layers.append(nn.Linear(width, width))
            layers.append(SigmoidGate(width))
        self.tower = nn.Sequential(*layers)

    def forward(self, x):
        out = self.tower(x)
        out += x
        return out


if __name__ == "__main__":
    torch.manual_seed(0)
    tower = GateTower()
    optimizer = torch.optim.SGD(tower.parameters(), lr=0.1)
    for step in range(3):
        optimizer.zero_grad()
        loss = tower(torch.randn(5, 4)).pow(2).mean()
        loss.backward()
        optimizer.step()
        print(step, loss.item())
