# OK: the stats logger from a helper module turns every tensor it is given by keyword into a Python number before a meter sees it.
import torch
import torch.nn as nn

from af105_helpers.meters import CheckedStatsLogger

torch.manual_seed(0)
classifier = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 3))
optimizer = torch.optim.Adam(classifier.parameters(), lr=1e-3)
stats = CheckedStatsLogger()
for step in range(5):
    features, labels = torch.randn(20, 6), torch.randint(0, 3, (20,))
    logits = classifier(features)
    loss = nn.functional.cross_entropy(logits, labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    stats.update(loss=loss, lr=optimizer.param_groups[0]["lr"])
print(stats.summary())
