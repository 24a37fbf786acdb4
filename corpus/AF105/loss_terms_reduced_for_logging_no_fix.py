# AF105 (no fix): the criterion returns the loss and a dict of its terms (tensors with the graph);
# a helper averages the terms across processes and turns them into floats when there are several,
# but hands the dict back unchanged on one process. The running totals then keep every step's
# graph on one process, and `.detach()` would raise on the floats of a multi-process run.
import torch
import torch.nn as nn


def world_size():
    return 1


def average_terms(terms):
    if world_size() < 2:
        return terms
    with torch.no_grad():
        return {name: value.item() / world_size() for name, value in terms.items()}


class SegmentationLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.pixel = nn.CrossEntropyLoss()

    def forward(self, logits, labels):
        pixel = self.pixel(logits, labels)
        smooth = logits.softmax(dim=1).var()
        total = pixel + 0.1 * smooth
        return total, {"total": total, "pixel": pixel, "smooth": smooth}


torch.manual_seed(0)
net = nn.Conv2d(3, 4, 1)
criterion = SegmentationLoss()
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
running = None
for step in range(4):
    images, labels = torch.randn(2, 3, 5, 5), torch.randint(0, 4, (2, 5, 5))
    optimizer.zero_grad()
    loss, terms = criterion(net(images), labels)
    loss.backward()
    optimizer.step()
    terms = average_terms(terms)
    if running is None:
        running = {name: 0.0 for name in terms.keys()}
    for name in terms.keys():
        running[name] += terms[name]
    if step % 2 == 1:
        print({name: float(value) / 2 for name, value in running.items()})
        running = {name: 0.0 for name in running}
