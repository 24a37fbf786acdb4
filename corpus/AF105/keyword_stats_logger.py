# AF105: the loss goes by keyword into a stats logger from a helper module; the logger hands each value to a meter whose update() adds the tensor, graph and all, into its running sum.
import torch
import torch.nn as nn

from af105_helpers.meters import StatsLogger

torch.manual_seed(0)
classifier = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 3))
optimizer = torch.optim.Adam(classifier.parameters(), lr=1e-3)
stats = StatsLogger()
for step in range(5):
    features, labels = torch.randn(20, 6), torch.randint(0, 3, (20,))
    logits = classifier(features)
    loss = nn.functional.cross_entropy(logits, labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    accuracy = (logits.argmax(dim=1) == labels).float().mean().item()
    stats.update(loss=loss, accuracy=accuracy, lr=optimizer.param_groups[0]["lr"])
print(stats.summary())
