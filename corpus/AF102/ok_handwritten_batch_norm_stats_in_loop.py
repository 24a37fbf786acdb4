# ok: the loop keeps a hand-written batch norm's moving averages between steps; they are updated from each batch with the graph attached, but where gradients flow the normalised output uses only the batch's own statistics, so no backward() reaches an earlier step's graph.
import torch
import torch.nn as nn

torch.manual_seed(0)


def batch_norm(X, moving_mean, moving_var, eps=1e-5, momentum=0.9):
    if not torch.is_grad_enabled():
        X_hat = (X - moving_mean) / torch.sqrt(moving_var + eps)
    else:
        mean = X.mean(dim=0)
        var = ((X - mean) ** 2).mean(dim=0)
        X_hat = (X - mean) / torch.sqrt(var + eps)
        moving_mean = momentum * moving_mean + (1.0 - momentum) * mean
        moving_var = momentum * moving_var + (1.0 - momentum) * var
    return X_hat, moving_mean, moving_var


encoder = nn.Linear(4, 8)
head = nn.Linear(8, 1)
optimizer = torch.optim.SGD([*encoder.parameters(), *head.parameters()], lr=0.1)
moving_mean, moving_var = torch.zeros(1, 8), torch.ones(1, 8)
for step in range(4):
    optimizer.zero_grad()
    normalised, moving_mean, moving_var = batch_norm(encoder(torch.randn(16, 4)), moving_mean, moving_var)
    loss = head(normalised).pow(2).mean()
    loss.backward()
    optimizer.step()
    print(step, round(loss.item(), 4))
