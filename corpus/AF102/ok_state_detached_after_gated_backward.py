# Not AF102: the language model back-propagates every second chunk, through both chunks, and detaches
# its recurrent state right after that backward, inside the same `if`. A pass that skips the block
# frees no graph; one that runs it leaves the state cut. Nothing carried into the next pass is freed.
import torch
import torch.nn as nn


def repackage(state):
    if isinstance(state, torch.Tensor):
        return state.detach()
    return tuple(repackage(part) for part in state)


class ChunkLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(4, 6)
        self.head = nn.Linear(6, 4)

    def forward(self, chunk, state=None):
        features, state = self.rnn(chunk, state)
        return self.head(features), state


torch.manual_seed(12)
model = ChunkLM()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
state = None
pending = []
for chunk_index in range(1, 9):
    chunk = torch.randn(5, 3, 4)
    prediction, state = model(chunk, state)
    pending.append(prediction.pow(2).mean())
    if chunk_index % 2 == 0:
        sum(pending).backward()
        optimizer.step()
        optimizer.zero_grad()
        pending = []
        if state is not None:
            state = repackage(state)

# The same with the state's parts detached in place of the helper.
state = None
for chunk_index in range(1, 9):
    prediction, state = model(torch.randn(5, 3, 4), state)
    loss = prediction.pow(2).mean()
    if chunk_index % 2 == 0:
        loss.backward()
        state = (state[0].detach(), state[1].detach())
        optimizer.step()
        optimizer.zero_grad()
print("trained")
