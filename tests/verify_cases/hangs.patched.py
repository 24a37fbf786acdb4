# verify: codes=AF101 verdict=inconclusive timeout=3  (the runs hang)
# Trains, then waits forever (a stuck data loader, say).
import time
import torch

w = torch.ones(2, requires_grad=True)
(w * 3).sum().backward()
while True:
    time.sleep(0.05)
