# AF101: the generator hands back a dict (the image and a dict of landmarks it was drawn from); the
# caller builds the critic's input as a new dict, the image detached but the landmarks as they are
# (the helper copying them keeps each entry's graph), so the critic's backward after the
# generator's walks the landmarks' freed graph again and raises.
import torch
import torch.nn as nn

torch.manual_seed(0)


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
        image = drawn["image"]
        points = drawn["points"]
        fake_score = self.critic(image) + points["centre"].sum()
        return ((1 - self.critic(real)).pow(2) + fake_score.pow(2)).mean()


drawer, critic = Drawer(), nn.Linear(3, 1)
draw_loss, judge_loss = DrawerLoss(drawer, critic), CriticLoss(critic)
drawer_opt = torch.optim.SGD(drawer.parameters(), lr=0.1)
critic_opt = torch.optim.SGD(critic.parameters(), lr=0.1)
for step in range(3):
    real = torch.randn(6, 3)
    loss, drawn = draw_loss(torch.randn(6, 3))
    drawer_opt.zero_grad()
    loss.backward()
    drawer_opt.step()
    critic_opt.zero_grad()
    loss = judge_loss(real, {"image": drawn["image"].detach(), "points": frozen_copy(drawn["points"])})
    loss.backward()
    critic_opt.step()
    print(step, round(loss.item(), 4))
