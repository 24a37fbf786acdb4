# AF102: a model file on its own: forward rebuilds its scale from the parameters only on the calls that pass refresh=True, and reads it on every call; a call with refresh=False back-propagates through the graph an earlier call built, which that call's backward() already freed.
# autofix-test: verdict=inconclusive
import torch
import torch.nn as nn


class ScaledProjection(nn.Module):
    def __init__(self, inputs=6, outputs=4):
        super().__init__()
        self.proj = nn.Linear(inputs, outputs)
        self.log_scale = nn.Parameter(torch.zeros(outputs))
        self.scale = torch.ones(outputs)

    def forward(self, x, refresh=False):
        if refresh:
            self.scale = self.log_scale.exp()
        return self.proj(x) * self.scale


if __name__ == "__main__":
    print(ScaledProjection()(torch.randn(2, 6), refresh=True).shape)
