# AF102: LSTMCell `h, c = cell(x, (h, c))` inside a per-step training loop of a forecasting helper.
import torch
import torch.nn as nn

torch.manual_seed(0)


def train_online(cell, head, series, lr=0.01):
    optimizer = torch.optim.Adam(list(cell.parameters()) + list(head.parameters()), lr=lr)
    h = torch.zeros(1, cell.hidden_size)
    c = torch.zeros(1, cell.hidden_size)
    history = []
    for now, nxt in zip(series[:-1], series[1:]):
        h, c = h.detach(), c.detach()
        h, c = cell(now, (h, c))
        loss = (head(h) - nxt).pow(2).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        history.append(loss.item())
    return history


losses = train_online(nn.LSTMCell(2, 6), nn.Linear(6, 2), torch.randn(10, 1, 2))
print(len(losses))
