# AF102: the slope is made trainable by setting `slope.requires_grad = True`, and the predictions for the whole dataset are computed from it once, before the epochs; each sample's backward() goes through that one product, so the second sample finds its graph freed.
import torch

inputs = torch.tensor([0.5, 1.0, 1.5, 2.0])
targets = torch.tensor([1.1, 2.0, 2.9, 4.2])
slope = torch.Tensor([0.3])
slope.requires_grad = True
predictions = inputs * slope

for epoch in range(2):
    for i in range(4):
        err = (predictions[i] - targets[i]) ** 2
        err.backward()
        with torch.no_grad():
            slope -= 0.05 * slope.grad
            slope.grad.zero_()
    print(epoch, err.item())
