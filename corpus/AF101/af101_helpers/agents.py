"""A policy and a critic behind one object, each loss its own forward pass (used by the factory cases)."""
import torch
import torch.nn as nn


class SplitAgent(nn.Module):
    def __init__(self, width=4):
        super().__init__()
        self.policy = nn.Linear(width, 2)
        self.critic = nn.Linear(width, 1)

    def encode(self, obs):
        return torch.tanh(obs)

    def policy_loss(self, obs, actions, advantage):
        log_probs = torch.log_softmax(self.policy(obs), dim=-1).gather(1, actions[:, None])
        return -(log_probs * advantage).mean()

    def value_loss(self, obs, returns):
        return (self.critic(obs) - returns).pow(2).mean()
