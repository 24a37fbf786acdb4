# OK: a model file on its own: forward rebuilds the quantised offset only when the layer has an offset at all, and then before reading it; a layer without one never stores a graph in it. The test reads a setting forward never changes, so every call takes the same branch.
import torch
import torch.nn as nn


class RoundedLinear(nn.Module):
    def __init__(self, inputs=6, outputs=4, offset=True):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(outputs, inputs) * 0.1)
        if offset:
            self.offset = nn.Parameter(torch.zeros(outputs))
            self.offset_rounded = torch.zeros(outputs)
        else:
            self.offset = None
            self.offset_rounded = None
        self.step = 1.0 / 64

    def forward(self, x):
        weight = self.weight + (torch.round(self.weight / self.step) * self.step - self.weight).detach()
        if self.offset is not None:
            self.offset_rounded = self.offset + (torch.round(self.offset / self.step) * self.step - self.offset).detach()
        return nn.functional.linear(x, weight, self.offset_rounded)


if __name__ == "__main__":
    print(RoundedLinear()(torch.randn(2, 6)).shape)
