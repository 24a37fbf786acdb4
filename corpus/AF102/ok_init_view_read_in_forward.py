# ok: __init__ keeps only a transposed view of a parameter (a view keeps nothing for its backward and follows the parameter's in-place updates), and the temperature is taken from its parameter inside forward, so every step builds its own graph.
import torch
import torch.nn as nn


class TiedProjection(nn.Module):
    def __init__(self, features=6, hidden=4):
        super().__init__()
        self.encode = nn.Linear(features, hidden, bias=False)
        self.encode_columns = self.encode.weight.t()
        self.decode = nn.Linear(hidden, features)
        self.log_temperature = nn.Parameter(torch.zeros(1))

    def forward(self, x):
        code = torch.tanh(x @ self.encode_columns)
        return self.decode(code) / self.log_temperature.exp()


torch.manual_seed(0)
model = TiedProjection()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    x = torch.randn(8, 6)
    optimizer.zero_grad()
    loss = (model(x) - x).pow(2).mean()
    loss.backward()
    optimizer.step()
    print(step, loss.item())
