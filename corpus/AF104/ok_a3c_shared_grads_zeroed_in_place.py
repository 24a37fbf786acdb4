# OK: the shared optimizer zeroes the gradients in place (`set_to_none=False`); they are the local model's tensors, handed over once, so every step starts from zero and sees only its own gradients.
import torch
import torch.nn as nn

torch.manual_seed(0)


def worker(shared, optimizer, steps):
    local = nn.Linear(4, 1)
    for step in range(steps):
        local.load_state_dict(shared.state_dict())
        x, y = torch.randn(8, 4), torch.randn(8, 1)
        loss = (local(x) - y).pow(2).mean()
        optimizer.zero_grad(set_to_none=False)
        loss.backward()
        for param, shared_param in zip(local.parameters(), shared.parameters()):
            if shared_param.grad is not None:
                break
            shared_param._grad = param.grad
        optimizer.step()
        print(step, round(shared.weight.grad.norm().item(), 4))


shared_model = nn.Linear(4, 1)
worker(shared_model, torch.optim.SGD(shared_model.parameters(), lr=0.1), 4)
