# verify: codes=AF101 verdict=inconclusive  (both fail the same way)
# Fails for a reason no rule repairs: its data is not there.
import torch

data = torch.load("data/train.pt")
