# AF101 negative: an adversarially regularised autoencoder from a library. The script encodes once, trains the library's critic a few times on that embedding through `model.critic_loss(z)`, then trains the encoder on `model.reconstruction_loss(z)`. Both losses are methods of the library's object: what they do with `z` is not visible here (this library's critic loss detaches it, so the critic's backward calls free nothing the encoder's loss needs). A graph shared only through a library's methods is assumed, not proven: no report.
import torch
from torch import nn

try:
    from advgraph.models import AdversarialAutoencoder
except ImportError:  # runs without the library: a stand-in that behaves as its documentation says

    class _StandIn(nn.Module):
        def __init__(self, encoder, critic):
            super().__init__()
            self.encoder = encoder
            self.critic = critic

        def encode(self, x):
            return self.encoder(x)

        def critic_loss(self, z):
            real = self.critic(torch.randn_like(z))
            fake = self.critic(z.detach())
            return nn.functional.softplus(-real).mean() + nn.functional.softplus(fake).mean()

        def reconstruction_loss(self, z):
            return (z @ z.t()).sigmoid().sub(0.5).pow(2).mean()

        def prior_loss(self, z):
            return nn.functional.softplus(-self.critic(z)).mean()

    AdversarialAutoencoder = _StandIn


torch.manual_seed(0)
features = torch.randn(12, 5)
encoder = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 4))
critic = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
model = AdversarialAutoencoder(encoder, critic)
encoder_optimizer = torch.optim.Adam(encoder.parameters(), lr=0.01)
critic_optimizer = torch.optim.Adam(critic.parameters(), lr=0.001)


def train_round():
    model.train()
    encoder_optimizer.zero_grad()
    z = model.encode(features)
    for _ in range(3):
        critic_optimizer.zero_grad()
        critic_loss = model.critic_loss(z)
        critic_loss.backward()
        critic_optimizer.step()
    loss = model.reconstruction_loss(z) + model.prior_loss(z)
    loss.backward()
    encoder_optimizer.step()
    return float(loss.detach())


if __name__ == "__main__":
    for epoch in range(3):
        print(epoch, train_round())
