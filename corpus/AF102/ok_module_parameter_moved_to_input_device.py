# AF102 negative: a lookup-table policy keeps its table as an nn.Parameter and, on its first call, moves it to the device of the input (self.table = self.table.to(device)). A module only lets a Parameter be stored under a registered parameter's name (anything else raises TypeError), so the attribute stays a leaf: it carries no call's graph into the next call, and `self.table = self.table.detach()` would raise. The same holds for a parameter registered by name with register_parameter.
import torch
from torch import nn


class TablePolicy(nn.Module):
    def __init__(self, n_states, n_actions):
        super().__init__()
        self.table = nn.parameter.Parameter(torch.zeros(n_states, n_actions))
        self.device = None

    def forward(self, states):
        if self.device is None:
            self.device = states.device
            self.table = self.table.to(self.device)
        return self.table[states]


class ScaledTable(nn.Module):
    def __init__(self, n_states):
        super().__init__()
        self.register_parameter("scale", nn.Parameter(torch.ones(n_states)))

    def forward(self, states):
        self.scale = self.scale.to(states.device)
        return self.scale[states]


if __name__ == "__main__":
    torch.manual_seed(0)
    policy, scaled = TablePolicy(5, 3), ScaledTable(5)
    optimizer = torch.optim.SGD([*policy.parameters(), *scaled.parameters()], lr=0.1)
    for _ in range(3):
        states = torch.randint(0, 5, (4,))
        optimizer.zero_grad()
        loss = (policy(states).sum(dim=1) * scaled(states)).pow(2).mean()
        loss.backward()
        optimizer.step()
