"""Hands the executor its optimizer together with the optimizer's zero_grad as the per-batch hook."""
import torch
from torch import nn

from ok_executor_zeroed_by_its_runner import HookedExecutor


def run(epochs):
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    batches = [(torch.randn(6, 4), torch.randn(6, 1)) for _ in range(3)]
    executor = HookedExecutor()
    for epoch in range(epochs):
        print(epoch, executor.train(model, optimizer, batches, nn.MSELoss(), optimizer.zero_grad))
