# OK: the agent's forward applies two separate sub-networks to a batch of observations that carries no graph; the policy and value losses share no node, so back-propagating them one after the other is fine.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Agent(nn.Module):
    def __init__(self, policy_net, value_net):
        super().__init__()
        self.policy_net = policy_net
        self.value_net = value_net

    def forward(self, obs):
        return self.policy_net(obs), self.value_net(obs)


def learn(agent, obs, actions, advantages, targets, optimizer):
    for _ in range(2):
        logits, values = agent(obs)
        log_probs = torch.log_softmax(logits, dim=-1).gather(1, actions[:, None]).squeeze(1)
        policy_loss = -(log_probs * advantages).mean()
        value_loss = F.mse_loss(values.squeeze(-1), targets)
        optimizer.zero_grad()
        policy_loss.backward()
        value_loss.backward()
        optimizer.step()


torch.manual_seed(0)
agent = Agent(nn.Linear(3, 2), nn.Linear(3, 1))
learn(agent, torch.randn(5, 3), torch.randint(0, 2, (5,)), torch.randn(5), torch.randn(5),
      torch.optim.SGD(agent.parameters(), lr=0.1))
print("ok")
