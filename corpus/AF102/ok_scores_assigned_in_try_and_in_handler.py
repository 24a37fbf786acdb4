# OK: the scores are computed in the `try` body and again in the handler when the positional encoding is missing, or the handler skips the batch; every way past the `try` assigns them in this iteration, so none reads the previous iteration's scores.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
batches = [(torch.randn(8, 4 + (step % 2)), torch.randint(0, 2, (8,))) for step in range(6)]

for step, (features, labels) in enumerate(batches):
    optimizer.zero_grad()
    try:
        encoding = features[:, 4]
        scores = model(features[:, :4] + encoding[:, None])
    except IndexError:
        scores = model(features)
    loss = nn.functional.cross_entropy(scores, labels)
    loss.backward()
    optimizer.step()

for step, (features, labels) in enumerate(batches):
    optimizer.zero_grad()
    try:
        logits = model(features)
    except RuntimeError:
        continue
    loss = nn.functional.cross_entropy(logits, labels)
    loss.backward()
    optimizer.step()
    print(step, round(loss.item(), 4))
