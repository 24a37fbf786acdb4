# AF101: one combined PPO loss is back-propagated with retain_graph=True, the critic's optimizer (handed in by the caller) steps, and the same loss is back-propagated again through weights that step changed in place.
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, out):
        super().__init__()
        self.hidden = nn.Linear(3, 8)
        self.head = nn.Linear(8, out)

    def forward(self, x):
        return self.head(torch.tanh(self.hidden(x)))


def ppo_update(actor, critic, obs, target, advantage, actor_opt, critic_opt):
    for _ in range(2):
        policy_term = -(actor(obs).mean(-1, keepdim=True) * advantage).mean()
        value_term = (critic(obs) - target).pow(2).mean()
        loss = policy_term + 0.5 * value_term

        critic_opt.zero_grad()
        loss.backward(retain_graph=True)
        critic_opt.step()

        actor_opt.zero_grad()
        loss.backward()
        actor_opt.step()


torch.manual_seed(0)
actor, critic = Net(2), Net(1)
ppo_update(
    actor, critic, torch.randn(6, 3), torch.randn(6, 1), torch.randn(6, 1),
    torch.optim.SGD(actor.parameters(), lr=0.1), torch.optim.SGD(critic.parameters(), lr=0.1),
)
