# ok: the discriminator loss is picked by an if/elif on a setting only __init__ assigns; every step
# takes the same branch, so each step builds its own loss and nothing from the previous step is read.
import torch
import torch.nn as nn

torch.manual_seed(0)


class AdversarialTrainer:
    def __init__(self, objective):
        self.objective = objective
        self.critic = nn.Sequential(nn.Linear(6, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
        self.maker = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 6))
        self.critic_opt = torch.optim.Adam(self.critic.parameters(), lr=1e-3)
        self.maker_opt = torch.optim.Adam(self.maker.parameters(), lr=1e-3)

    def run(self, steps):
        for step in range(steps):
            real = torch.randn(12, 6)
            made = self.maker(torch.randn(12, 3))
            real_score = self.critic(real)
            made_score = self.critic(made.detach())
            if self.objective == "wasserstein":
                real_term = -real_score.mean()
                made_term = made_score.mean()
            elif self.objective == "hinge":
                real_term = torch.relu(1.0 - real_score).mean()
                made_term = torch.relu(1.0 + made_score).mean()
            critic_loss = real_term + made_term
            self.critic_opt.zero_grad()
            critic_loss.backward()
            self.critic_opt.step()

            maker_loss = -self.critic(made).mean()
            self.maker_opt.zero_grad()
            maker_loss.backward()
            self.maker_opt.step()
            if step % 5 == 0:
                print(step, real_term.item(), made_term.item())


AdversarialTrainer("hinge").run(10)
AdversarialTrainer("wasserstein").run(10)
