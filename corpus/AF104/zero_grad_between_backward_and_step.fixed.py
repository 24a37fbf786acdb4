# AF104: zero_grad() placed between backward() and step(): every update applies zero gradients.
import torch
import torch.nn as nn

torch.manual_seed(0)
regressor = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.Adam(regressor.parameters(), lr=1e-2)
mse = nn.MSELoss()

for epoch in range(4):
    x = torch.rand(32, 3)
    y = (x ** 2).sum(dim=1, keepdim=True)
    prediction = regressor(x)
    loss = mse(prediction, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"epoch {epoch}: {loss.item():.5f}")
