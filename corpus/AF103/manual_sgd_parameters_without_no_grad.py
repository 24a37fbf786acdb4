# AF103: a hand-written SGD step updates parameters in place outside torch.no_grad(): they are leaves that require grad.
import torch
import torch.nn as nn


def sgd_step(model: nn.Module, lr: float):
    for p in model.parameters():
        if p.grad is not None:
            p -= lr * p.grad


def train_epoch(model, batches, lr=0.05):
    for inputs, targets in batches:
        model.zero_grad()
        loss = nn.functional.mse_loss(model(inputs), targets)
        loss.backward()
        sgd_step(model, lr)


torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(3)]
train_epoch(net, batches)
