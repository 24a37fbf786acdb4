# AF103: the softmax output is edited in place, then backward() runs on a loss built from `torch.log(softmax)`: backward reaches the softmax, whose saved output `-=` changed, and raises.
import torch
import torch.nn.functional as F


def check_cross_entropy_grad():
    torch.manual_seed(123)
    logits = torch.randn(4, 5, requires_grad=True)
    target = torch.randint(5, (4,), dtype=torch.int64)
    softmax = F.softmax(logits, dim=1)
    log_softmax = torch.log(softmax)
    nll = F.nll_loss(log_softmax, target)
    grad = softmax
    grad[range(4), target] -= 1
    grad /= 4
    nll.backward()
    print(logits.grad)


check_cross_entropy_grad()
