# OK: the critic's wrapper module detaches the generated batch itself, as the first statement of its
# forward (`sample = sample.detach()`); the caller hands it the generator's output as is. The critic's
# backward after the generator's never reaches the generator's freed graph.
import torch
import torch.nn as nn

torch.manual_seed(0)


class GeneratorLoss(nn.Module):
    def __init__(self, maker, critic):
        super().__init__()
        self.maker = maker
        self.critic = critic

    def forward(self, noise):
        sample = self.maker(noise)
        return (1 - self.critic(sample)).pow(2).mean(), sample


class CriticLoss(nn.Module):
    def __init__(self, critic):
        super().__init__()
        self.critic = critic

    def forward(self, real, sample):
        sample = sample.detach()
        return ((1 - self.critic(real)).pow(2) + self.critic(sample).pow(2)).mean()


maker, critic = nn.Linear(3, 3), nn.Linear(3, 1)
make_loss, judge_loss = GeneratorLoss(maker, critic), CriticLoss(critic)
maker_opt = torch.optim.SGD(maker.parameters(), lr=0.1)
critic_opt = torch.optim.SGD(critic.parameters(), lr=0.1)
for step in range(3):
    real = torch.randn(6, 3)
    loss, sample = make_loss(torch.randn(6, 3))
    maker_opt.zero_grad()
    loss.backward()
    maker_opt.step()
    critic_opt.zero_grad()
    loss = judge_loss(real, sample)
    loss.backward()
    critic_opt.step()
    print(step, round(loss.item(), 4))
