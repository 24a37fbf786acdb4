# AF102 negative: a per-step method computes an auxiliary penalty only when its argument asks for it, and reads it
# only under that same argument, after setting it in the same call; no call sees a previous call's penalty, and
# the attribute is never set before the first call that asks for it (a detach before the `if` would raise).
import torch
import torch.nn as nn


class Trainer:
    def __init__(self, aux_every):
        torch.manual_seed(0)
        self.encoder = nn.Linear(5, 3)
        self.aux_head = nn.Linear(3, 1)
        self.aux_every = aux_every
        self.mse = nn.MSELoss()
        self.optimizer = torch.optim.SGD(list(self.encoder.parameters()) + list(self.aux_head.parameters()), lr=0.05)

    def update(self, batch, with_aux):
        codes = self.encoder(batch)
        self.main_loss = codes.pow(2).mean()
        if with_aux:
            self.aux_loss = 0.1 * self.mse(self.aux_head(codes), torch.ones(len(batch), 1))
        self.total = self.main_loss + (self.aux_loss if with_aux else 0.0)
        self.optimizer.zero_grad()
        self.total.backward()
        self.optimizer.step()

    def fit(self, steps):
        for step in range(steps):
            self.update(torch.randn(6, 5), with_aux=step % self.aux_every == 1)


if __name__ == "__main__":
    for every in (1, 2, 3):
        Trainer(every).fit(6)
    print("ok")
