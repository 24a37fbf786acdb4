# ok: each step's log-probability and reward go into a small trace object; at the end of every
# episode the update takes the latest steps back with a slice (trace.latest(n)), builds the policy
# loss from them and back-propagates it once, then the trace is emptied. Nothing is kept for logging.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Trace:
    def __init__(self):
        self.steps = []

    def record(self, log_prob, reward):
        self.steps.append((log_prob, reward))

    def latest(self, count):
        kept = self.steps[-count:]
        log_probs, rewards = zip(*kept)
        return torch.stack(log_probs), torch.tensor(rewards)

    def reset(self):
        self.steps = []


policy = nn.Sequential(nn.Linear(6, 24), nn.ReLU(), nn.Linear(24, 3))
optimizer = torch.optim.SGD(policy.parameters(), lr=1e-2)
trace = Trace()

for episode in range(8):
    observation = torch.randn(6)
    for t in range(16):
        dist = torch.distributions.Categorical(logits=policy(observation))
        choice = dist.sample()
        reward = 1.0 if choice.item() == 2 else 0.0
        trace.record(dist.log_prob(choice), reward)
        observation = torch.randn(6)
    log_probs, rewards = trace.latest(10)
    loss = -(log_probs * (rewards - rewards.mean())).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    trace.reset()
    print(episode, round(loss.item(), 4))
