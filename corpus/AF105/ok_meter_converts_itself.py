# The meter's update() turns what it is given into a Python number, so passing the loss is fine.
import torch
import torch.nn as nn

torch.manual_seed(0)


class RunningAverage:
    def __init__(self):
        self.total = 0.0
        self.steps = 0

    def update(self, value, weight=1):
        if torch.is_tensor(value):
            value = value.item()
        self.total += value * weight
        self.steps += weight


net = nn.Linear(4, 3)
opt = torch.optim.Adam(net.parameters())
tracker = RunningAverage()
for it in range(4):
    inputs, labels = torch.randn(10, 4), torch.randint(0, 3, (10,))
    loss = nn.functional.cross_entropy(net(inputs), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    tracker.update(loss, inputs.size(0))
print(tracker.total / tracker.steps)
