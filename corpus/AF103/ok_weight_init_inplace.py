# OK: weight initialisation writes parameters in place (nn.init.*_, .data, zero_ in _init_weights and reset_parameters).
import math

import torch
import torch.nn as nn


class ScaledLinear(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(n_out, n_in))
        self.bias = nn.Parameter(torch.empty(n_out))
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        bound = 1 / math.sqrt(self.weight.size(1))
        self.bias.data.uniform_(-bound, bound)

    def forward(self, x):
        return nn.functional.linear(x, self.weight, self.bias)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = ScaledLinear(5, 10)
        self.b = nn.Linear(10, 2)
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            module.weight.data.normal_(mean=0.0, std=0.02)
            if module.bias is not None:
                module.bias.data.zero_()

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


def init_embeddings(table: torch.Tensor):
    with torch.no_grad():
        table.normal_(0, 0.1)
        table[0].fill_(0)


torch.manual_seed(0)
model = Model()
emb = nn.Parameter(torch.empty(4, 5))
init_embeddings(emb)
opt = torch.optim.Adam(list(model.parameters()) + [emb], lr=1e-3)
for _ in range(2):
    idx = torch.randint(0, 4, (6,))
    loss = model(emb[idx]).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
