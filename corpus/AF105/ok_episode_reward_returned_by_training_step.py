# OK: the episode function back-propagates its losses and hands back their `.item()` numbers and the episode's reward, a sum of the environment's rewards; the loop keeps every reward in a list, which holds no graph.
import random

import torch
import torch.nn as nn

torch.manual_seed(0)
random.seed(0)


class CoinEnv:
    def reset(self):
        return [random.random() for _ in range(4)]

    def step(self, action):
        return [random.random() for _ in range(4)], float(action == 1), random.random() < 0.2, {}


def train(env, policy, optimizer):
    log_probs, episode_reward, done = [], 0, False
    state = env.reset()
    while not done:
        dist = torch.distributions.Categorical(logits=policy(torch.tensor(state)))
        action = dist.sample()
        log_probs.append(dist.log_prob(action))
        state, reward, done, _ = env.step(action.item())
        episode_reward += reward
    policy_loss = -torch.stack(log_probs).sum() * episode_reward
    optimizer.zero_grad()
    policy_loss.backward()
    optimizer.step()
    return policy_loss.item(), episode_reward


policy = nn.Linear(4, 2)
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
train_rewards = []
for episode in range(5):
    loss, train_reward = train(CoinEnv(), policy, optimizer)
    train_rewards.append(train_reward)
print(sum(train_rewards) / len(train_rewards))
