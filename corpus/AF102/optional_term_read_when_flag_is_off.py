# AF102: the auxiliary penalty is set only on the steps that ask for it, but read on every step once the trainer
# enables it: a step that skips the `if` adds the previous step's penalty, whose graph that step's backward()
# freed ("Trying to backward through the graph a second time"). The attribute is not set before the first step
# that asks for it, so a detach before the `if` would raise AttributeError: reported with no fix.
import torch
import torch.nn as nn


class Trainer:
    def __init__(self, aux_every):
        torch.manual_seed(0)
        self.encoder = nn.Linear(5, 3)
        self.aux_head = nn.Linear(3, 1)
        self.aux_every = aux_every
        self.use_aux = False
        self.mse = nn.MSELoss()
        self.optimizer = torch.optim.SGD(list(self.encoder.parameters()) + list(self.aux_head.parameters()), lr=0.05)

    def update(self, batch, with_aux):
        codes = self.encoder(batch)
        self.main_loss = codes.pow(2).mean()
        if with_aux:
            self.use_aux = True
            self.aux_loss = 0.1 * self.mse(self.aux_head(codes), torch.ones(len(batch), 1))
        self.total = self.main_loss + (self.aux_loss if self.use_aux else 0.0)
        self.optimizer.zero_grad()
        self.total.backward()
        self.optimizer.step()

    def fit(self, steps):
        for step in range(steps):
            self.update(torch.randn(6, 5), with_aux=step % self.aux_every == 1)


if __name__ == "__main__":
    Trainer(3).fit(6)  # step 1 sets the penalty, step 2 reads it again: RuntimeError
    print("ok")
