# AF102: a plain energy model squares its trainable factor into a Gram matrix once, in __init__, and its energy() method returns a quadratic form of that cached matrix; the loop back-propagates each energy, so the second backward() finds the matrix's graph freed.
import torch


class QuadraticEnergy:
    def __init__(self, dim=3):
        self.factor = torch.randn(dim, dim, requires_grad=True)
        self.gram = self.factor @ self.factor.T

    def energy(self, x):
        return (x @ self.gram * x).sum()


torch.manual_seed(0)
model = QuadraticEnergy()
optimizer = torch.optim.SGD([model.factor], lr=1e-3)
for step in range(3):
    optimizer.zero_grad()
    value = model.energy(torch.randn(4, 3))
    value.backward()
    optimizer.step()
    print(step, value.item())
