# ok: the slope is made trainable with `slope.requires_grad = True` and each sample's prediction is computed inside the loop, so every backward() has a graph of its own.
import torch

inputs = torch.tensor([0.5, 1.0, 1.5, 2.0])
targets = torch.tensor([1.1, 2.0, 2.9, 4.2])
slope = torch.Tensor([0.3])
slope.requires_grad = True

for epoch in range(2):
    for i in range(4):
        err = (inputs[i] * slope - targets[i]) ** 2
        err.backward()
        with torch.no_grad():
            slope -= 0.05 * slope.grad
            slope.grad.zero_()
    print(epoch, err.item())
