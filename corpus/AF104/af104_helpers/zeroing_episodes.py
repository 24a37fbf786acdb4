"""An episode loop that zeroes its optimizer before handing it to an update function of another file."""
import torch
from torch import nn

from ok_update_function_zeroed_by_its_loop import value_regression_update


def run_episodes(count):
    torch.manual_seed(0)
    critic = nn.Linear(3, 1)
    optim = torch.optim.Adam(critic.parameters(), lr=1e-3)
    for _ in range(count):
        predictions = [critic(torch.randn(3)).squeeze() for _ in range(5)]
        optim.zero_grad()
        value_regression_update(optim, predictions, torch.randn(5))
