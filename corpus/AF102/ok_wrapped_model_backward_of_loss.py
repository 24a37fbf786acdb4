# OK: a distributed wrapper (DeepSpeed's engine, here a stand-in named by the script) back-propagates the loss it is handed: `wrapped.backward(loss)`; the model moved with `.to(device)` before the loop is a module, not a graph carried into every iteration.
import torch
import torch.nn as nn


class Backend:
    """Stands in for DeepSpeed's engine: the wrapped model, its backward(loss) and step()."""

    def distribute(self, model, optimizer):
        return Wrapped(model, optimizer), optimizer


class Wrapped:
    def __init__(self, model, optimizer):
        self.model, self.optimizer = model, optimizer

    def __call__(self, *args):
        return self.model(*args)

    def backward(self, loss):
        loss.backward()

    def step(self):
        self.optimizer.step()
        self.optimizer.zero_grad()


torch.manual_seed(0)
device = torch.device("cpu")
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
model = model.to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
distr_model, distr_opt = Backend().distribute(model=model, optimizer=opt)
for step in range(3):
    loss = distr_model(torch.randn(5, 4)).pow(2).mean()
    distr_model.backward(loss)
    distr_model.step()
print("done")
