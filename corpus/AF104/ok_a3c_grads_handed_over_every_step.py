# OK: the worker sets its local gradients to None every step and hands the fresh tensors to the shared model every step, so the shared optimizer always steps with this step's gradients.
import torch
import torch.nn as nn

torch.manual_seed(0)


def worker(shared, optimizer, steps):
    local = nn.Linear(4, 1)
    for step in range(steps):
        local.load_state_dict(shared.state_dict())
        x, y = torch.randn(8, 4), torch.randn(8, 1)
        loss = (local(x) - y).pow(2).mean()
        local.zero_grad()
        loss.backward()
        for param, shared_param in zip(local.parameters(), shared.parameters()):
            shared_param._grad = param.grad
        optimizer.step()
        print(step, round(shared.weight.grad.norm().item(), 4))


shared_model = nn.Linear(4, 1)
worker(shared_model, torch.optim.SGD(shared_model.parameters(), lr=0.1), 4)
