# AF105: every batch loss is appended to a list that is only averaged with sum()/len().
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
loader = DataLoader(TensorDataset(torch.randn(40, 3), torch.randn(40, 1)), batch_size=8)
regressor = nn.Linear(3, 1)
opt = torch.optim.Adam(regressor.parameters(), lr=1e-2)

batch_losses = []
for inputs, targets in loader:
    opt.zero_grad()
    loss = nn.functional.l1_loss(regressor(inputs), targets)
    loss.backward()
    opt.step()
    batch_losses.append(loss)
print("average:", sum(batch_losses) / len(batch_losses))
