# AF101: the agent comes from a factory, but both losses are computed from one encoding of the batch; the value loss goes back through the graph the policy loss freed.
import torch

from af101_helpers.agents import SplitAgent


def build_agent(args):
    return SplitAgent(width=args["width"])


class Scaled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.ones(4))

    def forward(self, obs):
        return obs * self.scale


torch.manual_seed(0)
agent = build_agent({"width": 4})
encoder = Scaled()
policy_optimizer = torch.optim.Adam([*agent.policy.parameters(), *encoder.parameters()], lr=1e-3)
value_optimizer = torch.optim.Adam(agent.critic.parameters(), lr=1e-3)
for update in range(3):
    obs, actions, returns = torch.randn(6, 4), torch.randint(0, 2, (6,)), torch.randn(6, 1)
    features = encoder(obs)
    policy_optimizer.zero_grad()
    policy_loss = agent.policy_loss(features, actions, torch.randn(6, 1))
    policy_loss.backward()
    policy_optimizer.step()
    value_optimizer.zero_grad()
    value_loss = agent.value_loss(features, returns)
    value_loss.backward()
    value_optimizer.step()
    print(update, policy_loss.item(), value_loss.item())
