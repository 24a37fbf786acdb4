# OK: truncated BPTT over windows of T steps: the hidden state carries its graph between the steps of a window, and the block that back-propagates every T steps detaches it first, so no backward() ever reaches a freed graph.
import torch
import torch.nn as nn

T = 4
torch.manual_seed(0)
cell = nn.GRUCell(3, 8)
head = nn.Linear(8, 1)
optimizer = torch.optim.Adam([*cell.parameters(), *head.parameters()], lr=1e-3)
for episode in range(2):
    hx = torch.zeros(1, 8)
    outputs, step, done = [], 0, False
    while not done:
        hx = cell(torch.randn(1, 3), hx)
        outputs.append(head(hx))
        step += 1
        done = step == 10
        if step % T == 0 or done:
            loss = torch.cat(outputs).pow(2).mean()
            optimizer.zero_grad()
            hx = hx.detach()
            loss.backward()
            optimizer.step()
            outputs = []
print("done")
