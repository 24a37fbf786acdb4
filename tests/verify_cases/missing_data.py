# A verification input; the .patched.py files that name it say what the verifier must find.
# Fails for a reason no rule repairs: its data is not there.
import torch

data = torch.load("data/train.pt")
