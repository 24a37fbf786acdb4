# A verification input; the .patched.py files that name it say what the verifier must find.
# Trains, then waits forever (a stuck data loader, say).
import time
import torch

w = torch.ones(2, requires_grad=True)
(w * 3).sum().backward()
while True:
    time.sleep(0.05)
