# AF102: the module caches exp(log_scale) on itself at the end of forward and the next call's loss reads it: each call back-propagates through a graph built in the previous call, before the optimizer changed the parameter. Detaching would cut the parameter's gradient, so the message asks to recompute it where it is used.
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
        if self.scale is None:
            self.scale = self.log_scale.exp()
        out = self.linear(x) * self.scale
        self.scale = self.log_scale.exp()
        return out
