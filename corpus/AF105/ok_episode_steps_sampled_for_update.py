# ok: each episode's log-probabilities and rewards go into a small memory object; the update draws a
# random subset of the stored steps with random.sample, builds the policy loss from them and
# back-propagates it once, then the memory is cleared. The stored graphs are what the update uses.
import random

import torch
import torch.nn as nn

torch.manual_seed(0)
random.seed(0)


class EpisodeMemory:
    def __init__(self):
        self.steps = []

    def store(self, log_prob, reward):
        self.steps.append((log_prob, reward))

    def draw(self, count):
        chosen = random.sample(self.steps, min(count, len(self.steps)))
        log_probs, rewards = zip(*chosen)
        return torch.stack(log_probs), torch.tensor(rewards)

    def clear(self):
        self.steps = []


policy = nn.Sequential(nn.Linear(4, 32), nn.Tanh(), nn.Linear(32, 2))
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
memory = EpisodeMemory()

for episode in range(10):
    state = torch.randn(4)
    for t in range(20):
        dist = torch.distributions.Categorical(logits=policy(state))
        action = dist.sample()
        reward = 1.0 if action.item() == int(state[0] > 0) else 0.0
        memory.store(dist.log_prob(action), reward)
        state = torch.randn(4)
    log_probs, rewards = memory.draw(8)
    loss = -(log_probs * (rewards - rewards.mean())).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    memory.clear()
    print(episode, round(loss.item(), 4))
