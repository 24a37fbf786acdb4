# AF104: an A3C-style worker hands its local model's gradient tensors to the shared model (`shared_param._grad = param.grad`) and zeroes only through the shared optimizer. Before PyTorch 2.0 that `zero_grad()` zeroed the shared tensors in place, which are the local ones; now it sets `.grad` to None, nothing zeroes the local gradients, and every step applies the sum of all gradients so far.
# autofix-test: unsafe-fixes
import torch
import torch.nn as nn

torch.manual_seed(0)


def sync_grads(local, shared):
    for param, shared_param in zip(local.parameters(), shared.parameters()):
        shared_param._grad = param.grad


def worker(shared, optimizer, steps):
    local = nn.Linear(4, 1)
    for step in range(steps):
        local.load_state_dict(shared.state_dict())
        x, y = torch.randn(8, 4), torch.randn(8, 1)
        loss = (local(x) - y).pow(2).mean()
        optimizer.zero_grad(set_to_none=False)
        loss.backward()
        sync_grads(local, shared)
        optimizer.step()
        print(step, round(local.weight.grad.norm().item(), 4))


shared_model = nn.Linear(4, 1)
worker(shared_model, torch.optim.SGD(shared_model.parameters(), lr=0.1), 4)
