# OK: a model file on its own keeps a running mean of its features on the module, updated under torch.no_grad(): the stored value carries no graph.
import torch
import torch.nn as nn


class CenteredEncoder(nn.Module):
    def __init__(self, features=5, width=7):
        super().__init__()
        self.body = nn.Linear(features, width)
        self.center = torch.zeros(width)

    def forward(self, x):
        feats = self.body(x)
        with torch.no_grad():
            self.center = 0.9 * self.center + 0.1 * feats.mean(0)
        return feats - self.center
