# AF103: hand-made weights get requires_grad = True first and are then filled with uniform_(), an in-place op on a leaf that requires grad.
import torch

torch.manual_seed(0)
weights = torch.empty(5, 1)
weights.requires_grad = True
weights.uniform_(-0.1, 0.1)
bias = torch.zeros(1).requires_grad_()

opt = torch.optim.SGD([weights, bias], lr=0.05)
for _ in range(3):
    features = torch.randn(8, 5)
    target = torch.randn(8, 1)
    loss = (features @ weights + bias - target).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
