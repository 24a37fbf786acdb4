"""Residual blocks whose activation comes from the experiment's configuration."""
import torch.nn as nn

ACTIVATIONS = {"relu": nn.ReLU, "gelu": nn.GELU}


def make_body(width, config):
    activation = ACTIVATIONS[config["activation"]]
    options = {"inplace": True} if config.get("inplace") else {}
    return nn.Sequential(nn.Linear(width, width), activation(**options))


class ResidualBlock(nn.Module):
    def __init__(self, width, config):
        super().__init__()
        self.body = make_body(width, config)

    def forward(self, x):
        out = self.body(x)
        out += x
        return out
