# AF102: `out` is bound only while `args.phase` is "warmup", and the loop hands `args` to `advance_phase`, which switches it; from then on each iteration back-propagates the previous output, whose graph the last backward() freed.
import argparse

import torch
import torch.nn as nn

torch.manual_seed(0)


def advance_phase(args, step):
    if step >= args.warmup_steps:
        args.phase = "main"


def train(args, batches, model, optimizer):
    for step, (x, y) in enumerate(batches):
        advance_phase(args, step)
        optimizer.zero_grad()
        if args.phase == "warmup":
            out = model(x)
        loss = nn.functional.mse_loss(out, y)
        loss.backward()
        optimizer.step()


batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(4)]
model = nn.Linear(4, 1)
train(argparse.Namespace(phase="warmup", warmup_steps=2), batches, model, torch.optim.SGD(model.parameters(), lr=0.1))
