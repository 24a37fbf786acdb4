# AF102: a hand-written running normalisation returns the batch minus a moving average that is updated from each batch's mean with its graph attached; the loop feeds that average back in, so the next iteration's backward() goes through the previous iteration's graph, which its own backward() freed.
import torch
import torch.nn as nn

torch.manual_seed(0)


def running_norm(X, moving_mean, momentum):
    mean = X.mean(dim=0)
    moving_mean = momentum * moving_mean + (1.0 - momentum) * mean
    return X - moving_mean, moving_mean


encoder = nn.Linear(4, 8)
head = nn.Linear(8, 1)
optimizer = torch.optim.SGD([*encoder.parameters(), *head.parameters()], lr=0.1)
moving_mean = torch.zeros(1, 8)
for step in range(4):
    optimizer.zero_grad()
    moving_mean = moving_mean.detach()
    normalised, moving_mean = running_norm(encoder(torch.randn(16, 4)), moving_mean, 0.9)
    loss = head(normalised).pow(2).mean()
    loss.backward()
    optimizer.step()
    print(step, round(loss.item(), 4))
