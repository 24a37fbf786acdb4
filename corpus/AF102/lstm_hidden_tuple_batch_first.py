# AF102: batch_first LSTM keeps `state` as one (h, c) tuple across windows of a long series.
import torch
import torch.nn as nn

torch.manual_seed(0)
series = torch.randn(2, 40, 3)


class Forecaster(nn.Module):
    def __init__(self, features=3, width=16):
        super().__init__()
        self.rnn = nn.LSTM(features, width, batch_first=True)
        self.head = nn.Linear(width, features)


net = Forecaster()
optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)

state = (torch.zeros(1, 2, 16), torch.zeros(1, 2, 16))
for i in range(0, 30, 10):
    window = series[:, i:i + 10]
    future = series[:, i + 1:i + 11]
    features, state = net.rnn(window, state)
    prediction = net.head(features)
    loss = (prediction - future).abs().mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
