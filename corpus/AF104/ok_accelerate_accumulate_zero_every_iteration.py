# OK: accelerate's accumulate() context makes step() and zero_grad() act only at the end of each accumulation window, so zeroing every iteration is right.
import torch
import torch.nn as nn

try:
    from accelerate import Accelerator
except ImportError:  # runs without accelerate: no accumulation, plain backward
    import contextlib

    class Accelerator:
        def __init__(self, gradient_accumulation_steps=1):
            self.gradient_accumulation_steps = gradient_accumulation_steps

        def prepare(self, *objects):
            return objects

        def accumulate(self, model):
            return contextlib.nullcontext()

        def backward(self, loss):
            loss.backward()

torch.manual_seed(0)
accelerator = Accelerator(gradient_accumulation_steps=2)
model = nn.Linear(3, 3)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
model, optimizer = accelerator.prepare(model, optimizer)

for step in range(4):
    x, y = torch.randn(2, 3), torch.randn(2, 3)
    with accelerator.accumulate(model):
        loss = nn.functional.mse_loss(model(x), y)
        accelerator.backward(loss)
        optimizer.step()
        optimizer.zero_grad()
    print(step, loss.item())
