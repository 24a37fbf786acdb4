# OK: after the optimizer step, predictions are thresholded in place (`pred[pred >= 0.5] = 1`) by the loop and by a metrics helper; no backward follows.
import torch
import torch.nn as nn


def precision_at_threshold(logits, labels, threshold=0.5):
    scores = logits.sigmoid()
    scores[scores < threshold] = 0.0
    hits = (scores > 0) & (labels > 0)
    return hits.sum().item() / max(1, int((scores > 0).sum()))


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 4))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.BCEWithLogitsLoss()
for step in range(3):
    features = torch.randn(10, 6)
    labels = torch.randint(0, 2, (10, 4)).float()
    logits = model(features)
    loss = criterion(logits, labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    pred = torch.sigmoid(logits)
    pred[pred >= 0.5] = 1.0
    print(step, loss.item(), precision_at_threshold(logits, labels), pred.mean().item())
