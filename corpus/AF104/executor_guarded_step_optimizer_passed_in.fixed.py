# AF104: the executor's epoch back-propagates every batch and steps the optimizer it is handed only when the gradient norm is finite, but nothing (here or in af104_helpers/executor_runner.py, which builds the optimizer) ever zeroes the gradients: each step applies the sum of all batches so far.
# autofix-test: unsafe-fixes
import torch
from torch.nn.utils import clip_grad_norm_


class Executor:
    def __init__(self):
        self.steps = 0

    def train(self, model, optimizer, batches, criterion):
        model.train()
        for features, target in batches:
            loss = criterion(model(features), target)
            optimizer.zero_grad()
            loss.backward()
            norm = clip_grad_norm_(model.parameters(), 5.0)
            if torch.isfinite(norm):
                optimizer.step()
                self.steps += 1


if __name__ == "__main__":
    from af104_helpers.executor_runner import run

    run(2)
