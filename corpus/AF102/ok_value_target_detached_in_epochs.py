# ok: the TD target is computed once per update from the value network, before the epochs over the stored batch; each epoch uses it only as `td_target.detach()`, so no backward() goes into the graph it holds. The states it was computed from are rebuilt with torch.tensor() from the stored transitions and hold no graph either, though the value network is run on them again in every epoch.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.transitions = []
        self.value = nn.Linear(3, 1)
        self.optimizer = torch.optim.SGD(self.parameters(), lr=0.1)

    def batch(self):
        states, rewards = [], []
        for transition in self.transitions:
            state, reward = transition
            states.append(state)
            rewards.append([reward])
        state = torch.tensor(states, dtype=torch.float)
        reward = torch.tensor(rewards, dtype=torch.float)
        self.transitions = []
        return state, reward

    def update(self, epochs=3):
        states, rewards = self.batch()
        td_target = rewards + 0.9 * self.value(states)
        for epoch in range(epochs):
            loss = F.smooth_l1_loss(self.value(states), td_target.detach())
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            print(epoch, round(loss.item(), 4))


critic = Critic()
critic.transitions = [([0.1, 0.2, 0.3], 1.0), ([0.3, 0.2, 0.1], 0.5), ([0.0, 1.0, 0.0], -1.0)]
critic.update()
