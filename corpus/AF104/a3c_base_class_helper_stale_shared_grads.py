# AF104: the worker inherits `push_grads` from a base class in another file (af104_helpers/grad_sharing.py); it makes `self.local`'s gradient tensors the shared model's, but only while the shared gradients are unset. `self.local.zero_grad()` sets them to None since PyTorch 2.0, so backward() makes new tensors and the shared optimizer keeps stepping with the first step's gradients.
# autofix-test: unsafe-fixes
import torch
import torch.nn as nn

from af104_helpers.grad_sharing import SharedGradWorker


class Worker(SharedGradWorker):
    def __init__(self, shared, optimizer):
        super().__init__(shared)
        self.local = nn.Linear(3, 1)
        self.optimizer = optimizer

    def run(self, steps):
        for step in range(steps):
            self.local.load_state_dict(self.shared.state_dict())
            x = torch.full((2, 3), float(step + 1))
            self.local.zero_grad()
            loss = self.local(x).sum()
            loss.backward()
            self.push_grads()
            self.optimizer.step()
            # The shared optimizer stepped with this step's gradients, or with an earlier step's.
            print(step, "fresh" if torch.equal(self.shared.weight.grad, self.local.weight.grad) else "stale")


if __name__ == "__main__":
    torch.manual_seed(0)
    shared_model = nn.Linear(3, 1)
    Worker(shared_model, torch.optim.SGD(shared_model.parameters(), lr=0.01)).run(3)
