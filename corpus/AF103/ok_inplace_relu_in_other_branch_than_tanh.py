# OK: the attention output goes through `tanh` or through an in-place `relu`, chosen by an if/elif on the configured nonlinearity; no call takes both branches, so the in-place relu only ever sees the linear layer's output, which autograd did not save.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class AttentionOutput(nn.Module):
    def __init__(self, width, nonlinearity="relu"):
        super().__init__()
        self.mix = nn.Linear(2 * width, width)
        self.nonlinearity = nonlinearity

    def forward(self, query, context):
        context = self.mix(torch.cat([query, context], dim=-1))
        if self.nonlinearity == "tanh":
            context = torch.tanh(context)
        elif self.nonlinearity == "relu":
            context = F.relu(context, inplace=True)
        return context


for nonlinearity in ("relu", "tanh"):
    layer = AttentionOutput(4, nonlinearity)
    optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
    for step in range(2):
        loss = layer(torch.randn(2, 3, 4), torch.randn(2, 3, 4)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(nonlinearity, round(loss.item(), 4))
