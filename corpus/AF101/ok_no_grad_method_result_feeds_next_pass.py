# AF101/AF102 negative: an adaptive-augmentation GAN loop. After the discriminator's step, a controller's update method, decorated @torch.no_grad(), reads the discriminator's real-image scores and returns the new augmentation strength; the generator's pass and the next iteration's passes are augmented with it. Nothing built under no_grad has a graph, so the generator's loss shares no graph with the discriminator's, and the strength carries no graph into the next iteration.
import torch
from torch import nn


class StrengthController:
    def __init__(self, target):
        self.target = target
        self.strength = 0.0

    @torch.no_grad()
    def update(self, real_scores):
        overfit = torch.sign(real_scores).mean().item()
        self.strength = min(1.0, max(0.0, self.strength + (0.05 if overfit > self.target else -0.05)))
        return self.strength


def augment(images, strength):
    return images + strength * torch.randn_like(images)


if __name__ == "__main__":
    torch.manual_seed(0)
    generator = nn.Sequential(nn.Linear(4, 8), nn.Tanh())
    discriminator = nn.Sequential(nn.Linear(8, 1))
    g_optim = torch.optim.Adam(generator.parameters(), lr=1e-3)
    d_optim = torch.optim.Adam(discriminator.parameters(), lr=1e-3)
    controller = StrengthController(0.6)
    strength = 0.0
    for _ in range(3):
        real = torch.randn(16, 8)
        fake = generator(torch.randn(16, 4))
        real_scores = discriminator(augment(real, strength))
        fake_scores = discriminator(augment(fake.detach(), strength))
        d_loss = nn.functional.softplus(fake_scores).mean() + nn.functional.softplus(-real_scores).mean()
        d_optim.zero_grad()
        d_loss.backward()
        d_optim.step()
        strength = controller.update(real_scores)

        fake_scores = discriminator(augment(generator(torch.randn(16, 4)), strength))
        g_loss = nn.functional.softplus(-fake_scores).mean()
        g_optim.zero_grad()
        g_loss.backward()
        g_optim.step()
