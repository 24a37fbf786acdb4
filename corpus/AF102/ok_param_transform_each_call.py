# OK: the module recomputes exp(log_scale) from the parameter in every call before using it; nothing built in one call is read by the next.
import torch
import torch.nn as nn

torch.manual_seed(0)


class ScaledRegressor(nn.Module):
    def __init__(self, features=4):
        super().__init__()
        self.linear = nn.Linear(features, 1)
        self.log_scale = nn.Parameter(torch.zeros(1))
        self.scale = None

    def forward(self, x):
        self.scale = self.log_scale.exp()
        return self.linear(x) * self.scale
