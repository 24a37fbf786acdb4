"""The same total, but the term is a tensor with a graph on every task: on the first task the
bare arm of ``term.item() if task != 0 else term`` adds the tensor itself, so the total keeps
every step's graph alive for the whole task."""
import torch
import torch.nn as nn


class Learner:
    def __init__(self):
        self.net = nn.Linear(4, 3)
        self.task = 0
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)

    def run_task(self, steps):
        total_spread = 0.0
        for _ in range(steps):
            x, y = torch.randn(6, 4), torch.randn(6, 3)
            out = self.net(x)
            term = out.std()
            loss = (out - y).pow(2).mean() + 0.1 * term
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            total_spread += term.item() if self.task != 0 else term
        self.task += 1
        return total_spread


learner = Learner()
kept = learner.run_task(3)
print("graph kept by the total:", torch.is_tensor(kept) and kept.requires_grad)
