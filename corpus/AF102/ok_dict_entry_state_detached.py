# OK: the recurrent memory lives in a dict entry, and each batch first replaces it with a detached
# copy (truncated BPTT); another entry of the same dict counts batches and holds no graph.
import torch
import torch.nn as nn

torch.manual_seed(0)

cell = nn.GRUCell(6, 10)
tagger = nn.Linear(10, 3)
optimizer = torch.optim.Adam(list(cell.parameters()) + list(tagger.parameters()), lr=1e-3)
memory = {"h": torch.zeros(4, 10), "batches": 0}
for step in range(4):
    memory["h"] = memory["h"].detach()
    frames = torch.randn(4, 6)
    labels = torch.randint(0, 3, (4,))
    memory["h"] = cell(frames, memory["h"])
    memory["batches"] = memory["batches"] + 1
    loss = nn.functional.cross_entropy(tagger(memory["h"]), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
