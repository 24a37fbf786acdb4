# AF101: losses appended per head over a shared feature tensor, then back-propagated in a loop without retain_graph.
import torch
import torch.nn as nn
import torch.nn.functional as F


class MultiHead(nn.Module):
    def __init__(self, n_heads=3):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(7, 14), nn.ReLU())
        self.heads = nn.ModuleList(nn.Linear(14, 2) for _ in range(n_heads))


torch.manual_seed(0)
net = MultiHead()
sgd = torch.optim.SGD(net.parameters(), lr=0.1)
for batch_no in range(3):
    inputs, labels = torch.randn(5, 7), torch.randint(0, 2, (5, 3))
    sgd.zero_grad()
    hidden = net.body(inputs)
    head_losses = []
    for k, head in enumerate(net.heads):
        head_losses.append(F.cross_entropy(head(hidden), labels[:, k]))
    sum(head_losses).backward()
    sgd.step()
    print(batch_no, sum(l.item() for l in head_losses))
