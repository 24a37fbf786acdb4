# Not AF106: the critic's loss and then the actor's loss go back through one shared trunk.
import torch
from torch import nn

torch.manual_seed(25)
trunk = nn.Sequential(nn.Linear(6, 32), nn.ReLU())
actor = nn.Linear(32, 3)
critic = nn.Linear(32, 1)
critic_optimizer = torch.optim.Adam(critic.parameters(), lr=1e-3)
actor_optimizer = torch.optim.Adam([*trunk.parameters(), *actor.parameters()], lr=1e-3)

for update in range(4):
    states = torch.randn(20, 6)
    returns = torch.randn(20, 1)
    actions = torch.randint(0, 3, (20,))
    features = trunk(states)
    values = critic(features)
    critic_loss = (returns - values).pow(2).mean()
    critic_optimizer.zero_grad()
    critic_loss.backward(retain_graph=True)
    critic_optimizer.step()

    advantage = (returns - values).detach()
    log_probs = torch.log_softmax(actor(features), dim=-1)
    actor_loss = -(log_probs.gather(1, actions[:, None]) * advantage).mean()
    actor_optimizer.zero_grad()
    actor_loss.backward()
    actor_optimizer.step()
