# AF107: a head's forward rectifies its input with x.relu_(): the caller's sigmoid output, saved for backward, is overwritten.
# autofix-test: unsafe-fixes
import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self, width: int, classes: int):
        super().__init__()
        self.fc = nn.Linear(width, classes)

    def forward(self, x):
        x.relu_()
        return self.fc(x)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(16, 32), nn.Sigmoid())
        self.head = Head(32, 4)

    def forward(self, x):
        return self.head(self.backbone(x))


torch.manual_seed(0)
model = Classifier()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.CrossEntropyLoss()
for step in range(3):
    inputs = torch.randn(8, 16)
    labels = torch.randint(0, 4, (8,))
    optimizer.zero_grad()
    loss = loss_fn(model(inputs), labels)
    loss.backward()
    optimizer.step()
    print(step, loss.item())
