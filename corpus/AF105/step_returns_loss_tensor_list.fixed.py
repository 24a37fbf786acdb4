# AF105: the step back-propagates each refinement pass but hands back the loss tensors themselves; the epoch totals built from them keep every pass's graph alive.
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
        pass_losses.append(loss.detach())
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
