# AF101: the agent's forward runs one shared body and puts both heads on its output, so the policy and value losses go through the body's graph; the first backward() frees it.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Agent(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, 8), nn.Tanh())
        self.policy_head = nn.Linear(8, 2)
        self.value_head = nn.Linear(8, 1)

    def forward(self, obs):
        features = self.body(obs)
        return self.policy_head(features), self.value_head(features)


def learn(agent, obs, actions, advantages, targets, optimizer):
    for _ in range(2):
        logits, values = agent(obs)
        log_probs = torch.log_softmax(logits, dim=-1).gather(1, actions[:, None]).squeeze(1)
        policy_loss = -(log_probs * advantages).mean()
        value_loss = F.mse_loss(values.squeeze(-1), targets)
        optimizer.zero_grad()
        (policy_loss + value_loss).backward()
        optimizer.step()


torch.manual_seed(0)
agent = Agent()
learn(agent, torch.randn(5, 3), torch.randint(0, 2, (5,)), torch.randn(5), torch.randn(5),
      torch.optim.SGD(agent.parameters(), lr=0.1))
print("ok")
