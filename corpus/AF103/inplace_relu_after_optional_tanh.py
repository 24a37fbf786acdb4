# AF103: the attention output may go through `tanh` and then through an in-place `relu`, two separate `if`s that one call can both take; `tanh` saved its output for backward and the in-place relu overwrites it.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class AttentionOutput(nn.Module):
    def __init__(self, width, squash=True, rectify=True):
        super().__init__()
        self.mix = nn.Linear(2 * width, width)
        self.squash = squash
        self.rectify = rectify

    def forward(self, query, context):
        context = self.mix(torch.cat([query, context], dim=-1))
        if self.squash:
            context = torch.tanh(context)
        if self.rectify:
            context = F.relu(context, inplace=True)
        return context


layer = AttentionOutput(4)
optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
for step in range(2):
    loss = layer(torch.randn(2, 3, 4), torch.randn(2, 3, 4)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(step, round(loss.item(), 4))
