# Every few steps the loop makes an adversarial output (under `if cfg.adv > 0 and step %
# cfg.every == 0:`), but reads it under the looser `if cfg.adv > 0:`. On the steps in between
# the read sees the previous iteration's output, whose graph that iteration's backward freed:
# "Trying to backward through the graph a second time".
import argparse

import torch
import torch.nn as nn

torch.manual_seed(0)
parser = argparse.ArgumentParser()
parser.add_argument("--adv", type=float, default=0.5)
parser.add_argument("--every", type=int, default=2)
parser.add_argument("--features", action="store_true")
cfg = parser.parse_args(["--features"])


class Embedder(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(6, 4)
        self.classes = nn.Linear(4, 3)

    def forward(self, x):
        f = torch.tanh(self.body(x))
        return self.classes(f), f


def train(model, criterion, optimizer, batches):
    for step, (x, y) in enumerate(batches):
        optimizer.zero_grad()
        outputs = model(x)
        if cfg.adv > 0 and step % cfg.every == 0:
            outputs_adv = model(x + 0.05 * torch.randn_like(x))
        if cfg.features:
            logits, feats = outputs
            loss = criterion(logits, y) + 0.01 * feats.pow(2).mean()
            if cfg.adv > 0:
                logits_adv, _ = outputs_adv
                loss = loss + cfg.adv * criterion(logits_adv, y)
        else:
            loss = criterion(outputs[0], y)
        loss.backward()
        optimizer.step()
    return loss.item()


model = Embedder()
data = [(torch.randn(5, 6), torch.randint(0, 3, (5,))) for _ in range(6)]
print(train(model, nn.CrossEntropyLoss(), torch.optim.SGD(model.parameters(), lr=0.1), data))
