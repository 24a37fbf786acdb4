# AF102 negative: iterative refinement. Each batch is refined in a few passes; every pass after the first starts from the previous pass's prediction and per-layer offsets, cut from their graph and made leaves again (`if step > 0 and train:`), and only a training call back-propagates (`if train:`). On every pass that back-propagates what an earlier pass left, that state was detached first; the first pass starts from data, and an evaluation call never back-propagates. Offsets that are None stay None.
import torch
from torch import nn


class Refiner(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(8, 8)
        self.offset = nn.Linear(8, 8)

    def forward(self, x, guess, offsets):
        delta = self.offset(torch.tanh(x + guess))
        offsets = [delta if o is None else o + delta for o in offsets]
        return self.net(x + guess) + offsets[0], offsets


def refine(model, x, target, passes, train):
    guess = torch.zeros_like(x)
    offsets = [None, None]
    losses = []
    for step in range(passes):
        if step > 0 and train:
            guess = guess.clone().detach().requires_grad_(True)
            offsets = [o.clone().detach().requires_grad_(True) if o is not None else o for o in offsets]
        guess, offsets = model(x, guess, offsets)
        loss = (guess - target).pow(2).mean()
        if train:
            loss.backward()
        losses.append(loss.item())
    return losses


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Refiner()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(2):
        optimizer.zero_grad()
        refine(model, torch.randn(4, 8), torch.randn(4, 8), passes=3, train=True)
        optimizer.step()
    with torch.no_grad():
        print(refine(model, torch.randn(4, 8), torch.randn(4, 8), passes=3, train=False))
