# AF105: the trainer's step drives a loss object with its own backward() and hands back the object's summed loss tensor itself; the running total of those tensors keeps every step's graph alive.
import torch
import torch.nn as nn

torch.manual_seed(0)


class SequenceLoss:
    def __init__(self):
        self.summed = 0
        self.steps = 0

    def reset(self):
        self.summed = 0
        self.steps = 0

    def eval_step(self, output, target):
        self.summed = self.summed + nn.functional.mse_loss(output, target)
        self.steps += 1

    def backward(self):
        self.summed.backward()

    def get_loss(self):
        return self.summed.item() / max(self.steps, 1)


class Trainer:
    def __init__(self, model, loss=SequenceLoss()):
        self.model = model
        self.loss = loss
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

    def train_batch(self, inputs, targets):
        loss = self.loss
        loss.reset()
        for x, y in zip(inputs, targets):
            loss.eval_step(self.model(x), y)
        self.model.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.summed

    def train(self, batches, epochs):
        for epoch in range(epochs):
            epoch_total = 0
            for inputs, targets in batches:
                step_loss = self.train_batch(inputs, targets)
                epoch_total += step_loss
            print(epoch, round(float(epoch_total) / len(batches), 4))


batches = [([torch.randn(2, 3) for _ in range(3)], [torch.randn(2, 3) for _ in range(3)]) for _ in range(4)]
Trainer(nn.Linear(3, 3)).train(batches, 2)
