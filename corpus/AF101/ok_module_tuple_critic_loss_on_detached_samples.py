# ok: an adversarial-loss module's forward hands back the critic's and the generator's losses in one tuple; the critic's loss comes from runs of the critic on detached samples of its own, so it shares no graph with the generator's loss, and its backward after the generator's step frees nothing it needs.
import torch
import torch.nn as nn


class HingePair(nn.Module):
    def __init__(self, generator, critic):
        super().__init__()
        self.generator = generator
        self.critic = critic

    def forward(self, noise, real):
        sample = self.generator(noise)
        on_real = self.critic(real.detach())
        on_sample = self.critic(sample.detach())
        critic_loss = torch.relu(1 - on_real).mean() + torch.relu(1 + on_sample).mean()
        generator_loss = -self.critic(sample).mean()
        return critic_loss, generator_loss, sample.detach()


torch.manual_seed(0)
generator = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 5))
critic = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 1))
generator_opt = torch.optim.SGD(generator.parameters(), lr=0.05)
critic_opt = torch.optim.SGD(critic.parameters(), lr=0.05)
hinge = HingePair(generator, critic)

for step in range(3):
    critic_loss, generator_loss, _ = hinge(torch.randn(6, 3), torch.randn(6, 5))
    generator_opt.zero_grad()
    generator_loss.backward()
    generator_opt.step()
    critic_opt.zero_grad()
    critic_loss.backward()
    critic_opt.step()
print("done")
