# AF102: the model's output is kept at the end of each iteration, after backward() and the step, and fed back in with the next input; it still holds the graph that backward() freed, so the next backward() walks into it.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(8, 4)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
previous = torch.zeros(2, 4)
for step in range(3):
    x = torch.randn(2, 4)
    out = model(torch.cat([x, previous], dim=1))
    loss = out.pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    previous = out
    print(step, round(loss.item(), 4))
