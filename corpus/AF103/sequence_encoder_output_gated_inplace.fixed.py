# AF103: an LSTM's sequence output is multiplied in place by a learned gate; the LSTM's backward reads that output.
import torch
import torch.nn as nn


class GatedEncoder(nn.Module):
    def __init__(self, d=6, hidden=10, classes=3):
        super().__init__()
        self.encoder = nn.LSTM(d, hidden, batch_first=True)
        self.gate = nn.Parameter(torch.full((hidden,), 0.5))
        self.classify = nn.Linear(hidden, classes)

    def forward(self, tokens):
        states, _ = self.encoder(tokens)
        states = states * torch.sigmoid(self.gate)
        return self.classify(states[:, -1])


torch.manual_seed(0)
model = GatedEncoder()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
loss_fn = nn.CrossEntropyLoss()
for _ in range(3):
    tokens = torch.randn(4, 7, 6)
    labels = torch.randint(0, 3, (4,))
    opt.zero_grad()
    loss = loss_fn(model(tokens), labels)
    loss.backward()
    opt.step()
