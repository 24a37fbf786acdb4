# AF101: the same vendored helper, but the features of one encoder pass go into it: both losses read
# its result, so the second backward walks the graph the first one freed.
import os
import sys

import torch
import torch.nn as nn

# The vendored folder sits next to this script (or next to the folder a runner put on sys.path).
for base in [os.path.dirname(os.path.abspath(__file__)), *sys.path]:
    if os.path.isdir(os.path.join(base, "af101_vendored")):
        sys.path.insert(0, os.path.join(base, "af101_vendored"))
        break
from mask_tools import as_weights  # noqa: E402

torch.manual_seed(9)
encoder = nn.Linear(4, 4)
optimizer = torch.optim.SGD(encoder.parameters(), lr=0.1)

for _ in range(3):
    states = torch.randn(8, 4)
    features = as_weights(encoder(states))
    first = features.pow(2).mean()
    second = features.abs().mean()
    optimizer.zero_grad()
    first.backward()
    second.backward()
    optimizer.step()
print("trained")
