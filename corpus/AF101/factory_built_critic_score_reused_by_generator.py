"""A critic built by a factory and called as ``critic.forward(x)`` on the generator's output,
not detached. The critic's loss back-propagates through that score, and the generator's loss
then back-propagates through the same score again: ``Trying to backward through the graph a
second time``. No fix: the generator needs a score of its own (call the critic again), or the
two losses summed into one backward."""
import torch
import torch.nn as nn


def prepare(net, device="cpu"):
    return net.to(device)


def build_critic(width):
    net = nn.Sequential(nn.Linear(width, 16), nn.Tanh(), nn.Linear(16, 1))
    return prepare(net)


generator = nn.Linear(3, 3)
critic = build_critic(6)
gen_opt = torch.optim.SGD(generator.parameters(), lr=0.05)
critic_opt = torch.optim.SGD(critic.parameters(), lr=0.05)

for step in range(4):
    cond, target = torch.randn(5, 3), torch.randn(5, 3)
    made = generator(cond)
    score_made = critic.forward(torch.cat([cond, made], 1))

    critic_opt.zero_grad()
    critic_loss = (score_made ** 2).mean()
    critic_loss.backward()

    gen_opt.zero_grad()
    gen_loss = ((score_made - 1) ** 2).mean() + (made - target).abs().mean()
    gen_loss.backward()
    gen_opt.step()
    critic_opt.step()
print("trained", gen_loss.item())
