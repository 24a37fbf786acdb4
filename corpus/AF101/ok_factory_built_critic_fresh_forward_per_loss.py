"""A critic built by a factory (``build_critic`` hands back ``prepare(net)``) and called as
``critic.forward(x)``: each loss runs a forward pass of its own. The critic's loss sees the
generator's output detached; the generator's loss calls the critic again after the critic's step.
No graph is back-propagated twice: the rule stays silent."""
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

    critic_opt.zero_grad()
    score_made = critic.forward(torch.cat([cond, made.detach()], 1))
    score_real = critic.forward(torch.cat([cond, target], 1))
    critic_loss = (score_made ** 2).mean() + ((score_real - 1) ** 2).mean()
    critic_loss.backward()
    critic_opt.step()

    gen_opt.zero_grad()
    score_again = critic.forward(torch.cat([cond, made], 1))
    gen_loss = ((score_again - 1) ** 2).mean() + (made - target).abs().mean()
    gen_loss.backward()
    gen_opt.step()
print("trained", gen_loss.item())
