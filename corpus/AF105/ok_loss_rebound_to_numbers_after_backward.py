# ok: after its backward the loss is rebound to a plain Python number (`loss.detach().cpu().tolist()`), and only that number is added to the running sum; no graph is kept.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 2)
criterion = nn.CrossEntropyLoss()
batches = [(torch.randn(8, 4), torch.randint(0, 2, (8,))) for _ in range(5)]


def run_epoch(optimizer):
    running = 0
    for x, y in batches:
        loss = criterion(model(x), y)
        if optimizer is not None:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        loss = loss.detach().cpu().tolist()
        running += loss
    return running / len(batches)


print(round(run_epoch(torch.optim.SGD(model.parameters(), lr=0.1)), 4))
