# AF104: the worker hands its local gradient tensors to the shared model through a helper of another file (af104_helpers/grad_sharing.py) that does it only while the shared gradients are unset. `local.zero_grad()` used to zero those tensors in place; since PyTorch 2.0 it sets them to None, backward() makes new ones, and the shared optimizer keeps stepping with the gradients of the first step.
# autofix-test: unsafe-fixes
import torch
import torch.nn as nn

from af104_helpers.grad_sharing import hand_over_once


def worker(shared, optimizer, steps):
    local = nn.Linear(3, 1)
    for step in range(steps):
        local.load_state_dict(shared.state_dict())
        x = torch.full((2, 3), float(step + 1))
        local.zero_grad()
        loss = local(x).sum()
        loss.backward()
        hand_over_once(local, shared)
        optimizer.step()
        # The shared optimizer stepped with this step's gradients, or with an earlier step's.
        print(step, "fresh" if torch.equal(shared.weight.grad, local.weight.grad) else "stale")


if __name__ == "__main__":
    torch.manual_seed(0)
    shared_model = nn.Linear(3, 1)
    worker(shared_model, torch.optim.SGD(shared_model.parameters(), lr=0.01), 3)
