# AF101 negative: the agent is built by a factory function (every return builds an object: one agent class or another, by configuration). The factory's result is a model, not the output of a forward pass, so the policy's and the value's losses, each computed by the agent's own methods with their own forward passes, share no graph through it.
import torch
from torch import nn


class Agent(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.policy = nn.Linear(4, width)
        self.value = nn.Linear(4, 1)

    def policy_loss(self, states):
        return -self.policy(states).log_softmax(-1).mean()

    def value_loss(self, states, returns):
        return (self.value(states).squeeze(-1) - returns).pow(2).mean()


class WideAgent(Agent):
    def __init__(self):
        super().__init__(8)


def build_agent(wide):
    if wide:
        return WideAgent()
    return Agent(2)


if __name__ == "__main__":
    torch.manual_seed(0)
    agent = build_agent(wide=True)
    policy_optim = torch.optim.Adam(agent.policy.parameters(), lr=1e-3)
    value_optim = torch.optim.Adam(agent.value.parameters(), lr=1e-3)
    for _ in range(3):
        states, returns = torch.randn(16, 4), torch.randn(16)
        policy_optim.zero_grad()
        agent.policy_loss(states).backward()
        policy_optim.step()
        value_optim.zero_grad()
        agent.value_loss(states, returns).backward()
        value_optim.step()
