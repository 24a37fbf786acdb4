# AF102: LSTM state starts as None and is then fed back batch after batch from a DataLoader.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
dataset = TensorDataset(torch.randn(24, 7, 4), torch.randint(0, 3, (24,)))
loader = DataLoader(dataset, batch_size=6, shuffle=False)

lstm = nn.LSTM(4, 8, batch_first=True)
classifier = nn.Linear(8, 3)
optimizer = torch.optim.Adam([*lstm.parameters(), *classifier.parameters()])
criterion = nn.CrossEntropyLoss()

hidden = None
for batch in loader:
    sequences, targets = batch
    if hidden is not None:
        hidden = tuple(t.detach() for t in hidden)
    outputs, hidden = lstm(sequences, hidden)
    loss = criterion(classifier(outputs[:, -1]), targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
