# Not AF106: k1/k2 truncated BPTT; every k1 steps, gradients flow back k2 steps by hand through kept graphs.
import torch
from torch import nn

torch.manual_seed(26)
cell = nn.RNNCell(2, 8)
readout = nn.Linear(8, 1)
optimizer = torch.optim.SGD([*cell.parameters(), *readout.parameters()], lr=0.01)
k1, k2 = 2, 3

for sequence, targets in [(torch.randn(8, 4, 2), torch.randn(8, 4, 1)) for _ in range(3)]:
    optimizer.zero_grad()
    history = [(None, torch.zeros(4, 8))]
    for t in range(sequence.shape[0]):
        start = history[-1][1].detach()
        start.requires_grad_(True)
        new_state = cell(sequence[t], start)
        history.append((start, new_state))
        while len(history) > k2:
            del history[0]
        if (t + 1) % k1 == 0:
            loss = (readout(new_state) - targets[t]).pow(2).mean()
            loss.backward(retain_graph=True)
            for back in range(k2 - 1):
                if history[-back - 2][0] is None:
                    break
                upstream = history[-back - 1][0].grad
                history[-back - 2][1].backward(upstream, retain_graph=True)
    optimizer.step()
