# OK: TBPTT where a helper cuts the graph by mapping `torch.Tensor.detach` over a nested state.
import torch
import torch.nn as nn

torch.manual_seed(0)


def map_tensors(value, fn):
    if isinstance(value, torch.Tensor):
        return fn(value)
    return type(value)(map_tensors(v, fn) for v in value)


def cut_history(state):
    return map_tensors(state, torch.Tensor.detach)


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(6, 10, batch_first=True)
        self.tags = nn.Linear(10, 4)

    def forward(self, x, state=None):
        feats, state = self.lstm(x, state)
        return self.tags(feats), state


tagger = Tagger()
optimizer = torch.optim.Adam(tagger.parameters(), lr=1e-3)
x_long = torch.randn(2, 24, 6)
y_long = torch.randint(0, 4, (2, 24))
state = None
for x_t, y_t in zip(x_long.split(8, dim=1), y_long.split(8, dim=1)):
    optimizer.zero_grad()
    if state is None:
        scores, state = tagger(x_t)
    else:
        state = cut_history(state)
        scores, state = tagger(x_t, state)
    loss = nn.functional.cross_entropy(scores.reshape(-1, 4), y_t.reshape(-1))
    loss.backward()
    optimizer.step()
