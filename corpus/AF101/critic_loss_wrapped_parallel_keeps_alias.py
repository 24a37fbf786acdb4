# AF101: both loss modules are wrapped in a project subclass of nn.DataParallel that only adds a
# hook (no __init__ or forward of its own), so calling the wrapper runs the wrapped module's
# forward. The critic's loss module detaches the image but keeps the landmarks, read through a
# local name (`points = drawn["points"]`), as they are (the helper copies them without detaching):
# the critic's backward walks the landmarks' graph, which the drawer's backward freed, and raises.
import torch
import torch.nn as nn

torch.manual_seed(0)


class HookedParallel(nn.DataParallel):
    def replicate(self, module, device_ids):
        return super().replicate(module, device_ids)


def frozen_copy(points):
    return {name: value for name, value in points.items()}


class Drawer(nn.Module):
    def __init__(self):
        super().__init__()
        self.locate = nn.Linear(3, 2)
        self.paint = nn.Linear(3, 3)

    def forward(self, noise):
        points = {"centre": self.locate(noise)}
        return {"image": self.paint(noise) * points["centre"].sum(), "points": points}


class DrawerLoss(nn.Module):
    def __init__(self, drawer, critic):
        super().__init__()
        self.drawer = drawer
        self.critic = critic

    def forward(self, noise):
        drawn = self.drawer(noise)
        return (1 - self.critic(drawn["image"])).pow(2).mean(), drawn


class CriticLoss(nn.Module):
    def __init__(self, critic):
        super().__init__()
        self.critic = critic

    def forward(self, real, drawn):
        image = drawn["image"].detach()
        points = drawn["points"]
        fake_score = self.critic(image) + frozen_copy(points)["centre"].sum()
        return ((1 - self.critic(real)).pow(2) + fake_score.pow(2)).mean()


def train(steps):
    drawer, critic = Drawer(), nn.Linear(3, 1)
    draw_loss = DrawerLoss(drawer, critic)
    judge_loss = CriticLoss(critic)
    draw_loss = HookedParallel(draw_loss, device_ids=[])
    judge_loss = HookedParallel(judge_loss, device_ids=[])
    drawer_opt = torch.optim.SGD(drawer.parameters(), lr=0.1)
    critic_opt = torch.optim.SGD(critic.parameters(), lr=0.1)
    for step in range(steps):
        real = torch.randn(6, 3)
        loss, drawn = draw_loss(torch.randn(6, 3))
        drawer_opt.zero_grad()
        loss.backward()
        drawer_opt.step()
        critic_opt.zero_grad()
        loss = judge_loss(real, drawn)
        loss.backward()
        critic_opt.step()
        print(step, round(loss.item(), 4))


train(3)
