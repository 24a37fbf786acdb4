# Not AF104: the gradients are cleared once before the loop and again right after every step,
# so each step applies one batch's gradients.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
batches = [(torch.randn(8, 3), torch.randn(8, 1)) for _ in range(4)]

opt.zero_grad()
for step, (x, y) in enumerate(batches):
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(step, round(loss.item(), 4))
