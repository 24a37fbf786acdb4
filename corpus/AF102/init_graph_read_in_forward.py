# AF102: the module turns its learnable log-temperature into a temperature once, in __init__ (exp keeps its output for backward), and forward divides every batch's logits by that one value; the first training step's backward() frees its graph and the second step fails.
import torch
import torch.nn as nn


class TemperedClassifier(nn.Module):
    def __init__(self, features=6, classes=3):
        super().__init__()
        self.body = nn.Linear(features, classes)
        self.log_temperature = nn.Parameter(torch.zeros(1))
        self.temperature = self.log_temperature.exp()

    def forward(self, x):
        return self.body(x) / self.temperature


torch.manual_seed(0)
model = TemperedClassifier()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    x, y = torch.randn(8, 6), torch.randint(0, 3, (8,))
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    print(step, loss.item())
