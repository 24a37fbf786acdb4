# ok: the model hands back `[loss] + memories`, and the memories are computed under no_grad inside it; the loop carries `ret[1:]` into the next segment, which holds no graph
import torch
import torch.nn as nn

torch.manual_seed(0)


class SegmentModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.Linear(8, 8)
        self.head = nn.Linear(8, 1)

    def _next_memories(self, hidden):
        with torch.no_grad():
            return [hidden.mean(0, keepdim=True)]

    def forward(self, x, *memories):
        context = memories[0] if memories else torch.zeros(1, 8)
        hidden = torch.tanh(self.cell(x) + context)
        loss = self.head(hidden).pow(2).mean()
        return [loss] + self._next_memories(hidden)


model = SegmentModel()
runner = model.to("cpu")
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
memories = tuple()
for segment in range(5):
    ret = runner(torch.randn(4, 8), *memories)
    loss, memories = ret[0], ret[1:]
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("done")
