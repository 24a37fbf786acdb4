"""An episode loop that hands its optimizer to an update function defined in another file."""
import torch
from torch import nn

from update_function_looped_in_other_file import policy_gradient_update


def run_episodes(count):
    torch.manual_seed(0)
    policy = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 2))
    optim = torch.optim.SGD(policy.parameters(), lr=0.01)
    for _ in range(count):
        log_probs = []
        for _ in range(6):
            dist = torch.distributions.Categorical(logits=policy(torch.randn(3)))
            log_probs.append(dist.log_prob(dist.sample()))
        policy_gradient_update(optim, log_probs, torch.randn(6))
