# OK: an agent keeps `self.memory` across steps but stores it detached after each update.
import torch
import torch.nn as nn

torch.manual_seed(0)


class RecurrentAgent:
    def __init__(self):
        self.core = nn.GRUCell(4, 8)
        self.value_head = nn.Linear(8, 1)
        self.optimizer = torch.optim.Adam(
            list(self.core.parameters()) + list(self.value_head.parameters()), lr=3e-4
        )
        self.memory = torch.zeros(1, 8)

    def update(self, observation, ret):
        memory = self.core(observation, self.memory)
        loss = (self.value_head(memory) - ret).pow(2).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.memory = memory.detach()
        return loss.item()


agent = RecurrentAgent()
for t in range(5):
    agent.update(torch.randn(1, 4), torch.randn(1, 1))
