# AF105: a score star-imported from a helper module is computed from the sigmoid of the logits, graph and all; the epoch total holds every batch's graph.
import torch
import torch.nn as nn

from af105_helpers.scores import *

torch.manual_seed(0)
segmenter = nn.Conv2d(1, 1, 3, padding=1)
optimizer = torch.optim.Adam(segmenter.parameters(), lr=0.01)
overlap_sum = 0.0
for batch in range(3):
    image = torch.randn(2, 1, 8, 8)
    mask = (torch.rand(2, 1, 8, 8) > 0.5).float()
    logits = segmenter(image)
    loss = nn.functional.binary_cross_entropy_with_logits(logits, mask)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    overlap_sum += soft_overlap(logits, mask)
print(f"overlap {float(overlap_sum) / 3:.3f}")
