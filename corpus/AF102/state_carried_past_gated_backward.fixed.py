# AF102: the same gated backward every second chunk, but the recurrent state is never detached. The
# chunk after a backward starts from a state whose graph that backward freed, and the next backward
# walks back into it: "Trying to backward through the graph a second time".
# autofix-test: verdict=diverged unsafe-fixes
import torch
import torch.nn as nn


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
for chunk_index in range(1, 9):
    if state is not None:
        state = tuple(t.detach() for t in state)
    prediction, state = model(torch.randn(5, 3, 4), state)
    loss = prediction.pow(2).mean()
    if chunk_index % 2 == 0:
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
print("trained")
