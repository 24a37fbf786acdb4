# Not AF106: `forward()` keeps the generator's output on `self`; `backward_adv()` keeps the graph so
# that `backward_rec()`, another method run in the same step, can walk it again. Dropping the flag
# makes the second backward raise "Trying to backward through the graph a second time".
import torch
import torch.nn as nn


class Trainer:
    def __init__(self):
        self.gen = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 4))
        self.critic = nn.Linear(4, 1)
        self.optimizer = torch.optim.SGD(self.gen.parameters(), lr=0.05)

    def forward(self, source):
        fake = self.gen(source)
        self.fake = fake
        self.source = source

    def backward_adv(self):
        adversarial = -self.critic(self.fake).mean()
        adversarial.backward(retain_graph=True)

    def backward_rec(self):
        reconstruction = (self.fake - self.source).abs().mean()
        reconstruction.backward()

    def optimize(self, source):
        self.forward(source)
        self.optimizer.zero_grad()
        self.backward_adv()
        self.backward_rec()
        self.optimizer.step()


torch.manual_seed(3)
trainer = Trainer()
for _ in range(3):
    trainer.optimize(torch.randn(5, 4))
print("trained")
