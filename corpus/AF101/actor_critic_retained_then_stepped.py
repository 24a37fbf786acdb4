# AF101: the critic backward keeps the graph with retain_graph=True, but the step that follows rewrites the shared network's weights in place before the actor backward.
import torch
import torch.nn as nn


class Agent:
    def __init__(self):
        self.net = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 3))
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=0.05)

    def update(self, obs, target_value):
        out = self.net(obs)
        logits, value = out[:, :2], out[:, 2:]
        critic_loss = (value - target_value).pow(2).mean()
        actor_loss = -torch.log_softmax(logits, dim=-1)[:, 0].mean()
        self.optimizer.zero_grad()
        critic_loss.backward(retain_graph=True)
        self.optimizer.step()
        self.optimizer.zero_grad()
        actor_loss.backward()
        self.optimizer.step()
        return critic_loss.item(), actor_loss.item()


torch.manual_seed(0)
agent = Agent()
for it in range(2):
    print(it, agent.update(torch.randn(5, 3), torch.randn(5, 1)))
