# ok: the hand-made weights are filled in place first and only then marked requires_grad, so the fill touches a plain tensor.
import torch

torch.manual_seed(0)
weights = torch.empty(5, 1)
weights.uniform_(-0.1, 0.1)
weights.requires_grad = True
bias = torch.zeros(1)
bias.add_(0.01)
bias.requires_grad_()

opt = torch.optim.SGD([weights, bias], lr=0.05)
for _ in range(3):
    features = torch.randn(8, 5)
    target = torch.randn(8, 1)
    loss = (features @ weights + bias - target).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        weights.clamp_(-1.0, 1.0)
