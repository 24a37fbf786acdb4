# AF102: the memory is fed back from one batch to the next, and the core's forward rebinds it first
# thing through a helper that only clamps it (recursing into tuples): the clamp keeps the graph, so
# the second backward walks into the first batch's freed graph. The loop calls a holder module wrapped
# in nn.DataParallel; the holder hands the memory straight to the core.
import torch
import torch.nn as nn


class MemoryCore(nn.Module):
    def __init__(self, width=6):
        super().__init__()
        self.width = width
        self.update = nn.Linear(2 * width, width)

    def _bounded(self, state):
        if state is None:
            return None
        if isinstance(state, torch.Tensor):
            return state.clamp(-5.0, 5.0)
        return tuple(self._bounded(part) for part in state)

    def blank(self, batch):
        return torch.zeros(batch, self.width), torch.zeros(batch, self.width)

    def forward(self, x, state):
        state = self._bounded(state)
        slow, fast = state
        fast = torch.tanh(self.update(torch.cat([x, fast], -1)))
        slow = 0.9 * slow + 0.1 * fast
        return fast, (slow, fast)


class Reader(nn.Module):
    def __init__(self):
        super().__init__()
        self.core = MemoryCore()
        self.head = nn.Linear(6, 1)

    def forward(self, x, state):
        out, state = self.core(x, state)
        return self.head(out), state


torch.manual_seed(0)
reader = Reader()
net = nn.DataParallel(reader)
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
state = reader.core.blank(3)
for step in range(6):
    x, y = torch.randn(3, 6), torch.randn(3, 1)
    pred, state = net(x, state)
    loss = (pred - y).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print("ok", loss.item())
