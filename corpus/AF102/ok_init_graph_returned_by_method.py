# ok: the energy model keeps only its trainable factor from __init__ and builds the Gram matrix inside energy(), so every call has a graph of its own.
import torch


class QuadraticEnergy:
    def __init__(self, dim=3):
        self.factor = torch.randn(dim, dim, requires_grad=True)

    def energy(self, x):
        gram = self.factor @ self.factor.T
        return (x @ gram * x).sum()


torch.manual_seed(0)
model = QuadraticEnergy()
optimizer = torch.optim.SGD([model.factor], lr=1e-3)
for step in range(3):
    optimizer.zero_grad()
    value = model.energy(torch.randn(4, 3))
    value.backward()
    optimizer.step()
    print(step, value.item())
