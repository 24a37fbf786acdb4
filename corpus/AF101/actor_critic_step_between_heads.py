# AF101: one forward pass gives policy logits and a value; the critic loss is back-propagated and stepped, then the actor loss goes back through the freed trunk.
import torch
import torch.nn as nn


class ActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(4, 16), nn.Tanh())
        self.policy = nn.Linear(16, 2)
        self.value = nn.Linear(16, 1)

    def forward(self, obs):
        hidden = self.trunk(obs)
        return self.policy(hidden), self.value(hidden)


torch.manual_seed(0)
net = ActorCritic()
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
for update in range(3):
    obs, actions, returns = torch.randn(6, 4), torch.randint(0, 2, (6,)), torch.randn(6, 1)
    logits, values = net(obs)
    advantage = (returns - values).detach()
    critic_loss = (returns - values).pow(2).mean()
    log_probs = torch.log_softmax(logits, dim=-1).gather(1, actions[:, None])
    actor_loss = -(log_probs * advantage).mean()
    optimizer.zero_grad()
    critic_loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    actor_loss.backward()
    optimizer.step()
    print(update, critic_loss.item(), actor_loss.item())
