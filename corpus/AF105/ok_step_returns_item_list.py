# ok: the step back-propagates each refinement pass and hands back a list of Python floats (.item()), so the epoch totals built from it hold no graph.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 4)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
criterion = nn.MSELoss()
passes = 2


def train_batch(inputs, target):
    pass_losses = []
    draft = inputs
    for _ in range(passes):
        output = model(draft)
        loss = criterion(output, target)
        pass_losses.append(loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        draft = output.detach()
    return pass_losses


for epoch in range(2):
    epoch_losses = [0.0] * passes
    for _ in range(3):
        batch_losses = train_batch(torch.randn(5, 4), torch.randn(5, 4))
        for i in range(passes):
            epoch_losses[i] += batch_losses[i] * 5
    print(epoch, epoch_losses)
