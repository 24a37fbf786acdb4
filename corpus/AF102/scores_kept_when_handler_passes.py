# AF102: the scores are computed only in the `try` body; when it fails the handler just passes, and the loss is computed from the previous iteration's scores, whose graph that iteration's backward() freed.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
batches = [(torch.randn(8, 4 + (step % 2)), torch.randint(0, 2, (8,))) for step in range(6)]

scores = None
for step, (features, labels) in enumerate(batches):
    optimizer.zero_grad()
    try:
        encoding = features[:, 4]
        scores = model(features[:, :4] + encoding[:, None])
    except IndexError:
        pass
    if scores is None:
        continue
    loss = nn.functional.cross_entropy(scores, labels)
    loss.backward()
    optimizer.step()
    print(step, round(loss.item(), 4))
