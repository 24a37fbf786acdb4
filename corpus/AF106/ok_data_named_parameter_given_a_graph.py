# Not AF106: the helper's parameter is called `x`, a name data usually has, but the loop hands it the
# generator's output; the caller back-propagates that output again after the helper returns, so the
# helper must keep the graph. Dropping the flag makes the second backward raise.
import torch
import torch.nn as nn

torch.manual_seed(6)
generator = nn.Linear(4, 4)
critic = nn.Linear(4, 1)
optimizer = torch.optim.SGD(generator.parameters(), lr=0.1)


def adversarial_step(x):
    loss = -critic(x).mean()
    loss.backward(retain_graph=True)


for _ in range(3):
    noise = torch.randn(5, 4)
    fake = generator(noise)
    optimizer.zero_grad()
    adversarial_step(fake)
    fake.pow(2).mean().backward()
    optimizer.step()
print("trained")
