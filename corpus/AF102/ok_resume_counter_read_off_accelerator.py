# OK: a resumed run skips the batches it already trained on. The number of batches to skip is an
# int worked out from the run's settings and from a field of the accelerator (the object whose
# backward(loss) back-propagates the loss, not a tensor); it is counted down across iterations and
# handed to the accelerator's batch skipper, never to autograd.
import math
import types

import torch
import torch.nn as nn

torch.manual_seed(0)


class Accelerator:
    num_processes = 1

    def skip_first_batches(self, batches, count):
        return batches[count:]

    def backward(self, loss):
        loss.backward()


def fit(settings, accelerator, net, optimizer, batches):
    to_skip = 0
    if settings.resume_epoch is not None:
        per_epoch = math.ceil(len(batches) / accelerator.num_processes / settings.accumulation)
        to_skip = (settings.resume_epoch - 1) * per_epoch
    for epoch in range(settings.epochs):
        source = batches
        if to_skip > 0:
            source = accelerator.skip_first_batches(batches, to_skip - 1)
            to_skip = 1
        for batch in source:
            if to_skip > 0:
                to_skip -= 1
                continue
            loss = net(batch).pow(2).mean()
            accelerator.backward(loss)
            optimizer.step()
            optimizer.zero_grad()


settings = types.SimpleNamespace(resume_epoch=2, accumulation=1, epochs=3)
net = nn.Linear(4, 1)
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
fit(settings, Accelerator(), net, optimizer, [torch.randn(8, 4) for _ in range(5)])
