# ok: sharpness-aware minimisation in a plain script. The two backward calls belong to two
# forward passes, and `ascend()` (which reads the gradients of the first pass) separates them;
# both losses read the same command-line settings, which carry no graph.
import argparse

import torch
import torch.nn as nn

torch.manual_seed(0)


class SharpnessAware(torch.optim.Optimizer):
    def __init__(self, params, inner, radius=0.05, **options):
        super().__init__(params, dict(radius=radius, **options))
        self.inner = inner(self.param_groups, **options)

    @torch.no_grad()
    def ascend(self, zero_grad=False):
        for group in self.param_groups:
            norm = torch.norm(torch.stack([p.grad.norm() for p in group["params"] if p.grad is not None]))
            for p in group["params"]:
                if p.grad is None:
                    continue
                shift = p.grad * group["radius"] / (norm + 1e-12)
                p.add_(shift)
                self.state[p]["shift"] = shift
        if zero_grad:
            self.zero_grad()

    @torch.no_grad()
    def descend(self, zero_grad=False):
        for group in self.param_groups:
            for p in group["params"]:
                if "shift" in self.state[p]:
                    p.sub_(self.state[p]["shift"])
        self.inner.step()
        if zero_grad:
            self.zero_grad()


def soft_targets_loss(logits, labels, smoothing):
    soft = torch.full_like(logits, smoothing / (logits.shape[1] - 1))
    soft.scatter_(1, labels[:, None], 1.0 - smoothing)
    return -(soft * logits.log_softmax(1)).sum(1)


parser = argparse.ArgumentParser()
parser.add_argument("--smoothing", type=float, default=0.1)
parser.add_argument("--lr", type=float, default=0.05)
args = parser.parse_args([])

net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 4))
optimizer = SharpnessAware(net.parameters(), torch.optim.SGD, lr=args.lr, momentum=0.9)
for step in range(4):
    inputs, labels = torch.randn(12, 6), torch.randint(0, 4, (12,))
    loss = soft_targets_loss(net(inputs), labels, smoothing=args.smoothing)
    loss.mean().backward()
    optimizer.ascend(zero_grad=True)
    soft_targets_loss(net(inputs), labels, smoothing=args.smoothing).mean().backward()
    optimizer.descend(zero_grad=True)
    print(f"step {step}: loss {loss.mean().item():.4f}")
