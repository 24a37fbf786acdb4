# AF104: the worker zeroes its local model and hands the local gradient tensors to the shared model only while the shared ones are unset (the classic "ensure shared grads" helper). Before PyTorch 2.0 `local.zero_grad()` zeroed those tensors in place, so the shared model saw each new gradient; now it sets `.grad` to None, the next backward() makes new tensors, and the shared optimizer steps with the first gradients forever.
# autofix-test: unsafe-fixes
import torch
import torch.nn as nn

torch.manual_seed(0)


class Worker:
    def __init__(self, shared, optimizer):
        self.shared = shared
        self.optimizer = optimizer
        self.local = nn.Linear(4, 1)

    def ensure_shared_grads(self):
        for param, shared_param in zip(self.local.parameters(), self.shared.parameters()):
            if shared_param.grad is not None:
                return
            shared_param._grad = param.grad

    def run(self, steps):
        for step in range(steps):
            self.local.load_state_dict(self.shared.state_dict())
            x, y = torch.randn(8, 4), torch.randn(8, 1)
            loss = (self.local(x) - y).pow(2).mean()
            self.local.zero_grad()
            loss.backward()
            self.ensure_shared_grads()
            self.optimizer.step()
            print(step, round(self.shared.weight.grad.norm().item(), 4), round(self.local.weight.grad.norm().item(), 4))


shared_model = nn.Linear(4, 1)
Worker(shared_model, torch.optim.SGD(shared_model.parameters(), lr=0.1)).run(4)
