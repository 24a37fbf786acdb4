# ok: the in-place shift hits the projection of the LSTM output (a Linear does not keep its output), not the output itself.
import torch
import torch.nn as nn


class ShiftedEncoder(nn.Module):
    def __init__(self, d=6, hidden=10, classes=3):
        super().__init__()
        self.encoder = nn.LSTM(d, hidden, batch_first=True)
        self.project = nn.Linear(hidden, classes)
        self.shift = nn.Parameter(torch.zeros(classes))

    def forward(self, tokens):
        states, (last_h, last_c) = self.encoder(tokens)
        logits = self.project(states[:, -1])
        logits += self.shift
        return logits + 0.0 * last_h.sum()


torch.manual_seed(0)
model = ShiftedEncoder()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
loss_fn = nn.CrossEntropyLoss()
for _ in range(3):
    tokens = torch.randn(4, 7, 6)
    labels = torch.randint(0, 3, (4,))
    opt.zero_grad()
    loss = loss_fn(model(tokens), labels)
    loss.backward()
    opt.step()
