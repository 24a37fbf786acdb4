# OK: a factory function returns the agent object; each loss calls one of its methods, which runs its own forward pass, so the two backward() calls share no graph.
import torch

from af101_helpers.agents import SplitAgent


def build_agent(args):
    if args["width"] > 8:
        return SplitAgent(width=args["width"])
    return SplitAgent()


torch.manual_seed(0)
agent = build_agent({"width": 4}).to("cpu")
policy_optimizer = torch.optim.Adam(agent.policy.parameters(), lr=1e-3)
value_optimizer = torch.optim.Adam(agent.critic.parameters(), lr=1e-3)
for update in range(3):
    obs, actions, returns = torch.randn(6, 4), torch.randint(0, 2, (6,)), torch.randn(6, 1)
    advantage = torch.randn(6, 1)
    for _ in range(2):
        policy_optimizer.zero_grad()
        policy_loss = agent.policy_loss(obs, actions, advantage)
        policy_loss.backward()
        policy_optimizer.step()
    value_optimizer.zero_grad()
    value_loss = agent.value_loss(obs, returns)
    value_loss.backward()
    value_optimizer.step()
    print(update, policy_loss.item(), value_loss.item())
