# The stateful forward is only run under torch.no_grad() (a rollout); training uses a separate stateless call.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Agent(nn.Module):
    def __init__(self):
        super().__init__()
        self.core = nn.GRUCell(3, 6)
        self.policy = nn.Linear(6, 2)
        self.memory = torch.zeros(1, 6)

    def forward(self, obs):
        with torch.no_grad():
            self.memory = self.core(obs, self.memory)
        return self.policy(self.memory)

    def score(self, obs, memory):
        return self.policy(self.core(obs, memory))


agent = Agent()
opt = torch.optim.Adam(agent.parameters(), lr=1e-3)
for episode in range(3):
    obs = torch.randn(1, 3)
    action = agent(obs).argmax(dim=1)
    loss = nn.functional.cross_entropy(agent.score(obs, torch.zeros(1, 6)), action)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(loss.item())
