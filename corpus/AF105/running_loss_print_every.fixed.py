# AF105: tutorial-style `running_loss += loss` printed and reset every few mini-batches.
import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 10)
        self.fc2 = nn.Linear(10, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


net = Net()
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
trainset = [(torch.randn(4, 16), torch.randint(0, 2, (4,))) for _ in range(6)]

for epoch in range(2):
    running_loss = 0.0
    for i, data in enumerate(trainset, 0):
        inputs, labels = data
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        if i % 3 == 2:
            print(f"[{epoch + 1}, {i + 1:3d}] loss: {running_loss / 3:.3f}")
            running_loss = 0.0
