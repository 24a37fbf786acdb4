# OK: zero_grad() at the start of each accumulation window and the step in self.update() under the closing guard.
import torch
import torch.nn as nn


class Learner:
    def __init__(self, net, accum_steps=3):
        self.net = net
        self.accum_steps = accum_steps
        self.opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)

    def update(self):
        self.opt.step()

    def learn(self, step, x, y):
        if step % self.accum_steps == 0:
            self.opt.zero_grad()
        loss = nn.functional.cross_entropy(self.net(x), y) / self.accum_steps
        loss.backward()
        if (step + 1) % self.accum_steps == 0:
            self.update()
        return loss.item()

    def run(self, batches):
        for step, (x, y) in enumerate(batches):
            print(step, self.learn(step, x, y))


torch.manual_seed(0)
Learner(nn.Linear(4, 3)).run([(torch.randn(5, 4), torch.randint(0, 3, (5,))) for _ in range(6)])
