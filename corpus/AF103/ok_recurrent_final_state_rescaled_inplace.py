# ok: the in-place rescale hits the LSTM's final hidden state, which its backward does not read; the sequence output is left alone.
import torch
import torch.nn as nn


class Summariser(nn.Module):
    def __init__(self, d=8, classes=3):
        super().__init__()
        self.rnn = nn.LSTM(d, d, batch_first=True)
        self.head = nn.Linear(2 * d, classes)

    def forward(self, x):
        seq, (final_h, final_c) = self.rnn(x)
        final_h.mul_(0.5)
        return self.head(torch.cat([seq.mean(1), final_h[-1]], dim=1))


torch.manual_seed(0)
model = Summariser()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.CrossEntropyLoss()
for _ in range(3):
    x = torch.randn(4, 5, 8)
    y = torch.randint(0, 3, (4,))
    loss = loss_fn(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
