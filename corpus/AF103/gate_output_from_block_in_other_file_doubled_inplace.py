# AF103: a mixer doubles in place the output of a gate block defined in another file of the project, whose forward returns a sigmoid output; sigmoid saved that output for backward.
import torch
import torch.nn as nn

from af103_helpers.gates import SigmoidGate


class GatedMixer(nn.Module):
    def __init__(self, width=4):
        super().__init__()
        self.gate = SigmoidGate(width)
        self.value = nn.Linear(width, width)

    def forward(self, x):
        g = self.gate(x)
        g *= 2.0
        return g * self.value(x)


if __name__ == "__main__":
    torch.manual_seed(0)
    mixer = GatedMixer()
    optimizer = torch.optim.SGD(mixer.parameters(), lr=0.1)
    for step in range(3):
        optimizer.zero_grad()
        loss = mixer(torch.randn(5, 4)).pow(2).mean()
        loss.backward()
        optimizer.step()
        print(step, loss.item())
