# OK: `push_grads`, inherited from a base class in another file (af104_helpers/grad_sharing.py), hands the local gradient tensors over once; `self.local.zero_grad(set_to_none=False)` zeroes them in place, so the shared model sees every new gradient.
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
            self.local.zero_grad(set_to_none=False)
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
