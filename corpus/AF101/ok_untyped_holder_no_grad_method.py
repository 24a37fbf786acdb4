# AF101 negative: the networks travel in a namespace object (nets.fan, nets.generator, nets.critic), so the analysis cannot tell what nets.fan is. The only method called `heatmap` that the program defines is decorated @torch.no_grad(): the masks it returns carry no graph, and the critic's and the generator's losses, which both read them, share no graph through them.
from types import SimpleNamespace

import torch
from torch import nn


class LandmarkNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 1, 3, padding=1)

    @torch.no_grad()
    def heatmap(self, x):
        return torch.sigmoid(self.conv(x))


class Solver:
    def __init__(self, nets):
        self.nets = nets
        self.g_optim = torch.optim.Adam(nets.generator.parameters(), lr=1e-3)
        self.d_optim = torch.optim.Adam(nets.critic.parameters(), lr=1e-3)

    def train(self, steps):
        nets = self.nets
        for _ in range(steps):
            real = torch.randn(4, 1, 8, 8)
            masks = nets.fan.heatmap(real)
            d_loss = critic_loss(nets, real, masks)
            self.d_optim.zero_grad()
            d_loss.backward()
            self.d_optim.step()
            g_loss = -nets.critic(nets.generator(real) * masks).mean()
            self.g_optim.zero_grad()
            g_loss.backward()
            self.g_optim.step()


def critic_loss(nets, real, masks):
    fake = nets.generator(real) * masks
    return nets.critic(fake.detach()).mean() - nets.critic(real * masks).mean()


if __name__ == "__main__":
    torch.manual_seed(0)
    Solver(SimpleNamespace(
        fan=LandmarkNet().eval(),
        generator=nn.Conv2d(1, 1, 3, padding=1),
        critic=nn.Sequential(nn.Flatten(), nn.Linear(64, 1)),
    )).train(3)
