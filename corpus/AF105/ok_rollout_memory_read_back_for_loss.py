# AF105 negative: an actor-critic worker keeps each step's log-probability and value in a small rollout memory object, through its `store` method (which appends them to lists on the object). Every few steps the worker takes the lists back out through the memory's `contents` method, builds the loss from them and back-propagates it, then empties the memory with `reset`. The stored graphs are exactly what the backward needs: the memory is a rollout buffer, not a running total kept for logging.
import torch
from torch import nn


class RolloutMemory:
    def __init__(self):
        self.log_probs = []
        self.values = []
        self.rewards = []

    def store(self, log_prob, value, reward):
        self.log_probs.append(log_prob)
        self.values.append(value)
        self.rewards.append(reward)

    def reset(self):
        self.log_probs = []
        self.values = []
        self.rewards = []

    def contents(self):
        return self.log_probs, self.values, self.rewards


class Agent(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 16)
        self.policy = nn.Linear(16, 2)
        self.value = nn.Linear(16, 1)

    def forward(self, state):
        hidden = torch.tanh(self.body(state))
        return torch.distributions.Categorical(logits=self.policy(hidden)), self.value(hidden)


def returns_of(rewards, gamma=0.9):
    out, running = [], 0.0
    for reward in reversed(rewards):
        running = reward + gamma * running
        out.append(running)
    return torch.tensor(list(reversed(out)))


if __name__ == "__main__":
    torch.manual_seed(0)
    agent = Agent()
    optimizer = torch.optim.Adam(agent.parameters(), lr=1e-3)
    memory = RolloutMemory()
    for step in range(1, 25):
        dist, value = agent(torch.randn(1, 4))
        action = dist.sample()
        reward = float(action.item() == 1)
        memory.store(dist.log_prob(action), value, reward)
        if step % 6 == 0:
            log_probs, values, rewards = memory.contents()
            returns = returns_of(rewards)
            values = torch.cat(values).squeeze(-1)
            advantage = returns - values
            loss = -(torch.cat(log_probs) * advantage.detach()).mean() + advantage.pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            memory.reset()
