# AF104: not reported. After backward() the trainer wipes the gradients of two parts of
# its network before stepping an optimizer over the whole network: those parts stay put
# (plain SGD, no momentum or weight decay), the rest learns. That is a freeze on purpose,
# not a misplaced zero_grad(); moving or deleting the calls would train the frozen parts.
import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(6, 5)
        self.mixer = nn.Linear(5, 5)
        self.readout = nn.Linear(5, 2)

    def forward(self, x):
        return self.readout(torch.tanh(self.mixer(self.embed(x))))


class Trainer:
    def __init__(self, net):
        self.net = net
        self.sgd = self.build_sgd()

    def build_sgd(self):
        return torch.optim.SGD(self.net.parameters(), lr=0.1)

    def fit_batch(self, x, y):
        self.sgd.zero_grad()
        err = nn.functional.mse_loss(self.net(x), y)
        err.backward()
        # keep the pretrained parts as they are
        self.net.embed.zero_grad()
        self.net.mixer.zero_grad()
        self.sgd.step()
        return err.item()


torch.manual_seed(3)
trainer = Trainer(Encoder())
embed_before = trainer.net.embed.weight.detach().clone()
mixer_before = trainer.net.mixer.weight.detach().clone()
readout_before = trainer.net.readout.weight.detach().clone()
for _ in range(4):
    trainer.fit_batch(torch.randn(10, 6), torch.randn(10, 2))
assert torch.equal(embed_before, trainer.net.embed.weight)
assert torch.equal(mixer_before, trainer.net.mixer.weight)
assert not torch.equal(readout_before, trainer.net.readout.weight)
print("frozen parts unchanged; readout trained")
