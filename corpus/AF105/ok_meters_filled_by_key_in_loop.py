# AF105 negative (twin of meters_filled_by_key_in_loop): the same per-term meters in a dict
# the step loop fills by key, but each step hands its meter `value.item()`: the meter adds
# plain numbers and holds no graph (0 autograd nodes kept).
import torch
import torch.nn as nn


class Meter:
    def __init__(self):
        self.total = 0.0
        self.count = 0

    def update(self, value, n=1):
        self.total += value * n
        self.count += n


def graph_nodes(t):
    seen, stack = set(), [getattr(t, "grad_fn", None)]
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        stack.extend(f for f, _ in fn.next_functions)
    return len(seen)


torch.manual_seed(0)
encoder = nn.Linear(8, 4)
decoder = nn.Linear(4, 8)
opt = torch.optim.SGD(list(encoder.parameters()) + list(decoder.parameters()), lr=0.01)
for epoch in range(2):
    meters = {}
    for step in range(10):
        x = torch.randn(16, 8)
        code = encoder(x)
        terms = {"recon": (decoder(code) - x).pow(2).mean(), "sparsity": code.abs().mean()}
        opt.zero_grad()
        (terms["recon"] + 0.1 * terms["sparsity"]).backward()
        opt.step()
        for name, value in terms.items():
            if name not in meters:
                meters[name] = Meter()
            meters[name].update(value.item())
    print(f"epoch {epoch}: autograd nodes held by the recon meter: {graph_nodes(meters['recon'].total)}")
    meters = {name: float(m.total) / m.count for name, m in meters.items()}
    print(meters)
