# AF102: a streaming tagger keeps its recurrent memory in a dict entry (`memory["h"]`) that every
# batch reads and overwrites; the entry still points into the graph the last backward() freed.
import torch
import torch.nn as nn

torch.manual_seed(0)

cell = nn.GRUCell(6, 10)
tagger = nn.Linear(10, 3)
optimizer = torch.optim.Adam(list(cell.parameters()) + list(tagger.parameters()), lr=1e-3)
memory = {"h": torch.zeros(4, 10)}
for step in range(4):
    frames = torch.randn(4, 6)
    labels = torch.randint(0, 3, (4,))
    memory["h"] = cell(frames, memory["h"])
    loss = nn.functional.cross_entropy(tagger(memory["h"]), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(loss.item())
