# OK: a sequence classifier builds a fresh zero state for every batch (`init_hidden`), nothing is carried.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(5, 12, batch_first=True, num_layers=2)
        self.fc = nn.Linear(12, 3)

    def init_hidden(self, batch_size):
        return torch.zeros(2, batch_size, 12)

    def forward(self, x, h):
        out, h = self.gru(x, h)
        return self.fc(out[:, -1]), h


clf = Classifier()
optimizer = torch.optim.SGD(clf.parameters(), lr=0.1, momentum=0.9)
for epoch in range(2):
    for _ in range(3):
        x = torch.randn(6, 7, 5)
        y = torch.randint(0, 3, (6,))
        h = clf.init_hidden(x.size(0))
        logits, h = clf(x, h)
        loss = nn.functional.cross_entropy(logits, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
