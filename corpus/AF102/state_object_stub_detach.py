# AF102: truncated BPTT through a small state object whose detach() is a stub that returns the object unchanged, so its tensors keep the previous chunk's graph; the object is not a tensor, so no fix is offered.
import torch
import torch.nn as nn

torch.manual_seed(0)


class LSTMState:
    def __init__(self, h, c):
        self.h = h
        self.c = c

    def detach(self):
        # meant to cut the history between chunks, but does nothing
        return self


lstm = nn.LSTM(4, 8)
head = nn.Linear(8, 1)
optimizer = torch.optim.SGD(list(lstm.parameters()) + list(head.parameters()), lr=0.1)
series = torch.randn(24, 1, 4)
targets = torch.randn(24, 1, 1)
state = LSTMState(torch.zeros(1, 1, 8), torch.zeros(1, 1, 8))
for start in range(0, 24, 6):
    state = state.detach()
    out, (h, c) = lstm(series[start:start + 6], (state.h, state.c))
    state = LSTMState(h, c)
    loss = (head(out) - targets[start:start + 6]).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(round(loss.item(), 4))
