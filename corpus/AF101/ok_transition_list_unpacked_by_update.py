# ok: the agent keeps its transition as a list: `[state, log_prob]` when it acts, extended with the environment's reply, unpacked name by name when it learns. The critic's loss uses only `state` (built from the observation), the actor's only `log_prob`, so the two backward() calls share no graph.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Actor(nn.Module):
    def __init__(self):
        super().__init__()
        self.mean = nn.Linear(3, 2)

    def forward(self, state):
        dist = torch.distributions.Normal(self.mean(state), 1.0)
        return dist.sample(), dist


class Agent:
    def __init__(self):
        self.actor = Actor()
        self.critic = nn.Linear(3, 1)
        self.actor_optimizer = torch.optim.Adam(self.actor.parameters(), lr=1e-3)
        self.critic_optimizer = torch.optim.Adam(self.critic.parameters(), lr=1e-3)
        self.transition = []
        self.gamma = 0.99

    def select_action(self, observation):
        state = torch.FloatTensor(observation)
        action, dist = self.actor(state)
        log_prob = dist.log_prob(action).sum(dim=-1)
        self.transition = [state, log_prob]
        return action.tolist()

    def step(self, action):
        next_state, reward, done = [0.2, 0.1, 0.0], 1.0, False
        self.transition.extend([next_state, reward, done])
        return next_state, reward, done

    def update_model(self):
        state, log_prob, next_state, reward, done = self.transition
        predicted = self.critic(state)
        target = reward + self.gamma * self.critic(torch.FloatTensor(next_state)) * (1 - done)
        value_loss = (predicted - target.detach()).pow(2).mean()
        self.critic_optimizer.zero_grad()
        value_loss.backward()
        self.critic_optimizer.step()

        advantage = (target - predicted).detach()
        policy_loss = -(advantage * log_prob).mean()
        self.actor_optimizer.zero_grad()
        policy_loss.backward()
        self.actor_optimizer.step()
        return policy_loss.item(), value_loss.item()

    def train(self, frames):
        state = [0.1, 0.2, 0.3]
        for _ in range(frames):
            action = self.select_action(state)
            state, reward, done = self.step(action)
            print(self.update_model())


Agent().train(3)
