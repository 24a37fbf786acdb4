# AF106: two batches, two forward passes; the first backward's graph is not the second one's.
import torch
from torch import nn

torch.manual_seed(8)
model = nn.Sequential(nn.Linear(7, 14), nn.Tanh(), nn.Linear(14, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
criterion = nn.CrossEntropyLoss()

for step in range(4):
    clean_x, clean_y = torch.randn(16, 7), torch.randint(0, 2, (16,))
    noisy_x = clean_x + 0.3 * torch.randn(16, 7)
    optimizer.zero_grad()
    clean_loss = criterion(model(clean_x), clean_y)
    clean_loss.backward()
    noisy_loss = criterion(model(noisy_x), clean_y)
    noisy_loss.backward()
    optimizer.step()
