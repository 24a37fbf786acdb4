# AF106: the value-update method keeps its graph with retain_graph=True, but the only caller hands it replay-buffer samples and the policy update that follows runs its own forward pass: nothing walks the kept graph again.
import torch
from torch import nn


class QLearner:
    def __init__(self, state_dim, n_actions):
        self.qnet = nn.Sequential(nn.Linear(state_dim, 32), nn.ReLU(), nn.Linear(32, n_actions))
        self.policy = nn.Sequential(nn.Linear(state_dim, 32), nn.ReLU(), nn.Linear(32, n_actions))
        self.q_optimizer = torch.optim.Adam(self.qnet.parameters(), lr=1e-3)
        self.pi_optimizer = torch.optim.Adam(self.policy.parameters(), lr=1e-3)

    def _fit_values(self, states, chosen, td_target):
        predicted = self.qnet(states).gather(1, chosen.unsqueeze(1)).squeeze(1)
        td_loss = nn.functional.smooth_l1_loss(predicted, td_target)
        self.q_optimizer.zero_grad()
        td_loss.backward(retain_graph=True)
        self.q_optimizer.step()
        return td_loss.item()

    def _fit_policy(self, states):
        probabilities = torch.softmax(self.policy(states), dim=-1)
        expected_value = (probabilities * self.qnet(states).detach()).sum(-1).mean()
        self.pi_optimizer.zero_grad()
        (-expected_value).backward()
        self.pi_optimizer.step()

    def learn(self, replay):
        for states, chosen, td_target in replay:
            self._fit_values(states, chosen, td_target)
            self._fit_policy(states)


torch.manual_seed(0)
samples = [(torch.randn(16, 5), torch.randint(0, 3, (16,)), torch.randn(16)) for _ in range(4)]
QLearner(5, 3).learn(samples)
