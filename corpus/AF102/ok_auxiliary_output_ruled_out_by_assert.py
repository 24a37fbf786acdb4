# ok: on steps where the network returns only its main output, the loop asserts that no auxiliary loss is configured (`config.aux_weight < 0`); the later `if config.aux_weight >= 0:` that reads `aux` is therefore never taken on such a step, so `aux` is only read in the iteration that assigned it and never carries the previous iteration's graph.
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
config = None


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 3)
        self.aux_head = nn.Linear(4, 3)

    def forward(self, x, with_aux):
        if with_aux:
            return self.body(x), self.aux_head(x)
        return self.body(x)


def train(model, optimizer, batches, warmup):
    for step, (x, y) in enumerate(batches):
        out = model(x, with_aux=step < warmup)
        if isinstance(out, tuple):
            logits, aux = out
        else:
            assert config.aux_weight < 0
            logits = out
        loss = F.cross_entropy(logits, y)
        if config.aux_weight >= 0:
            loss = loss + config.aux_weight * F.cross_entropy(aux, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(step, round(loss.item(), 4))


def run(aux_weight, warmup):
    global config
    config = argparse.Namespace(aux_weight=aux_weight)
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    batches = [(torch.randn(8, 4), torch.randint(0, 3, (8,))) for _ in range(3)]
    train(model, optimizer, batches, warmup)


run(0.5, warmup=3)
run(-1.0, warmup=1)
