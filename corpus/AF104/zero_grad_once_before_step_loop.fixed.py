# AF104: the runner clears the gradients once, before its loop, and each iteration calls a step
# method that back-propagates and steps without clearing them: from the second batch on, every
# step applies the sum of all gradients so far.
# autofix-test: unsafe-fixes
import torch
import torch.nn as nn

torch.manual_seed(0)


class Runner:
    def __init__(self, model, steps):
        self.model = model
        self.steps = steps
        self.opt = torch.optim.SGD(model.parameters(), lr=0.05)
        self.done = 0

    def one_batch(self, x, y):
        loss = nn.functional.mse_loss(self.model(x), y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()

    def run(self, batches):
        self.opt.zero_grad()
        while self.done < self.steps:
            x, y = batches[self.done % len(batches)]
            print(self.done, round(self.one_batch(x, y), 4))
            self.done += 1


batches = [(torch.randn(8, 3), torch.randn(8, 1)) for _ in range(2)]
Runner(nn.Linear(3, 1), steps=4).run(batches)
