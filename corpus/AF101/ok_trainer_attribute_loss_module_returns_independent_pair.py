# ok: a trainer holds an adversarial-loss module as an attribute; its forward may hand back nothing, or the critic's loss (critic runs on detached inputs only) and the generator's loss; the tuple is unpacked after the None check, and the critic's backward after the generator's step frees nothing the generator's backward used.
import torch
import torch.nn as nn
import torch.nn.functional as F


class LeastSquaresPair(nn.Module):
    def __init__(self, generator, critic, min_rows):
        super().__init__()
        self.generator = generator
        self.critic = critic
        self.min_rows = min_rows

    def forward(self, noise, real):
        if real.shape[0] < self.min_rows:
            return None
        fake = self.generator(noise)
        critic_loss = F.mse_loss(self.critic(real.detach()), torch.ones(real.shape[0], 1))
        critic_loss = critic_loss + F.mse_loss(self.critic(fake.detach()), torch.zeros(real.shape[0], 1))
        generator_loss = F.mse_loss(self.critic(fake), torch.ones(real.shape[0], 1))
        return critic_loss, generator_loss, fake.detach()


class Trainer:
    def __init__(self):
        self.generator = nn.Sequential(nn.Linear(2, 6), nn.ReLU(), nn.Linear(6, 4))
        self.critic = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 1))
        self.pair = LeastSquaresPair(self.generator, self.critic, min_rows=2)
        self.generator_opt = torch.optim.Adam(self.generator.parameters(), lr=1e-3)
        self.critic_opt = torch.optim.Adam(self.critic.parameters(), lr=1e-3)

    def train_step(self, noise, real):
        out = self.pair(noise, real)
        if out is None:
            return None
        critic_loss, generator_loss, _ = out
        self.generator_opt.zero_grad()
        generator_loss.backward()
        self.generator_opt.step()
        self.critic_opt.zero_grad()
        critic_loss.backward()
        self.critic_opt.step()
        return critic_loss.item(), generator_loss.item()


torch.manual_seed(0)
trainer = Trainer()
for step in range(3):
    print(trainer.train_step(torch.randn(5, 2), torch.randn(5, 4)))
