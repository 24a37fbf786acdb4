# Not AF106: the encoder's latent loss and the generator's loss share the encoding; the second backward needs it.
import torch
from torch import nn


class Model:
    def __init__(self):
        self.encoder = nn.Sequential(nn.Linear(6, 4))
        self.generator = nn.Sequential(nn.Linear(4, 6))
        self.opt_e = torch.optim.Adam(self.encoder.parameters(), lr=1e-3)
        self.opt_g = torch.optim.Adam(self.generator.parameters(), lr=1e-3)

    def optimize(self, image):
        latent = self.encoder(image)
        rebuilt = self.generator(latent)
        self.opt_g.zero_grad()
        self.opt_e.zero_grad()
        loss_g = (rebuilt - image).abs().mean()
        loss_g.backward(retain_graph=True)
        self.opt_g.step()
        loss_kl = latent.pow(2).mean()
        loss_kl.backward()
        self.opt_e.step()


torch.manual_seed(31)
model = Model()
for step in range(3):
    model.optimize(torch.randn(5, 6))
