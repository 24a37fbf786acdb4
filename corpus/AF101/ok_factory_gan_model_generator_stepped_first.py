# ok: a factory picks the model class from the options and wraps it; one forward hands back the discriminator and generator losses, the discriminator's computed on a detached fake. The generator's step between the two backward calls touches nothing the discriminator's loss needs.
import torch
import torch.nn as nn

torch.manual_seed(0)


class PairedGAN(nn.Module):
    def __init__(self):
        super().__init__()
        self.generator = nn.Linear(4, 4)
        self.discriminator = nn.Linear(4, 1)
        self.optimizer_G = torch.optim.Adam(self.generator.parameters(), lr=1e-3)
        self.optimizer_D = torch.optim.Adam(self.discriminator.parameters(), lr=1e-3)

    def forward(self, label, image):
        fake = self.generator(label)
        d_fake = nn.functional.softplus(self.discriminator(fake.detach())).mean()
        d_real = nn.functional.softplus(-self.discriminator(image)).mean()
        g_gan = nn.functional.softplus(-self.discriminator(fake)).mean()
        return [d_fake, d_real, g_gan], fake


class SketchGAN(PairedGAN):
    pass


def create_model(kind):
    if kind == "paired":
        model = PairedGAN()
    else:
        model = SketchGAN()
    model = nn.DataParallel(model, device_ids=[])
    return model


model = create_model("paired")
optimizer_G, optimizer_D = model.module.optimizer_G, model.module.optimizer_D
for step in range(3):
    losses, generated = model(torch.randn(8, 4), torch.randn(8, 4))
    loss_dict = dict(zip(["D_fake", "D_real", "G_GAN"], losses))
    loss_D = (loss_dict["D_fake"] + loss_dict["D_real"]) * 0.5
    loss_G = loss_dict["G_GAN"]

    optimizer_G.zero_grad()
    loss_G.backward()
    optimizer_G.step()

    optimizer_D.zero_grad()
    loss_D.backward()
    optimizer_D.step()
    print(step, round(loss_G.item(), 4), round(loss_D.item(), 4))
