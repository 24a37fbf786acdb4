"""An iterative image refiner: each call improves the previous estimate; its latent code is the
caller's, or a first guess computed without gradients. Shared by AF102 corpus cases."""
import torch
from torch import nn


class Refiner(nn.Module):
    def __init__(self, size=8, code_size=4, learn_codes=False):
        super().__init__()
        self.guess = nn.Linear(size, code_size)
        self.delta = nn.Linear(2 * size, size)
        self.decode = nn.Linear(code_size, size)
        self.adjust = nn.Linear(code_size, code_size)
        self.learn_codes = learn_codes

    def first_guess(self, x):
        with torch.no_grad():
            codes = self.guess(x)
            return self.decode(codes), codes

    def forward(self, x, estimate=None, codes=None, return_codes=False, return_delta=False):
        if estimate is None:
            estimate, codes = self.first_guess(x)
        delta = self.delta(torch.cat([x, estimate], dim=1))
        image = self.decode(codes) + delta
        if return_codes and return_delta:
            return image, delta, codes
        elif return_codes:
            return image, codes
        return image


class AdjustingRefiner(Refiner):
    """The same refiner, but it also learns to adjust the code on every call."""

    def forward(self, x, estimate=None, codes=None, return_codes=False, return_delta=False):
        if estimate is None:
            estimate, codes = self.first_guess(x)
        codes = self.adjust(codes)
        delta = self.delta(torch.cat([x, estimate], dim=1))
        image = self.decode(codes) + delta
        if return_codes and return_delta:
            return image, delta, codes
        elif return_codes:
            return image, codes
        return image
