# OK: every few steps the loop adds an adversarial term. Its output is made under
# `if cfg.adv > 0 and step % cfg.every == 0:` and read later in the same iteration under the very
# same test, written with other spacing (`cfg.adv>0  and step%cfg.every==0`) and inside another
# `if`. A read only ever sees the value made earlier in its own iteration, never the previous
# iteration's freed graph.
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
            if cfg.adv>0  and step%cfg.every==0:
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
