# AF101: AMP-style `scaler.scale(l).backward()` twice through one forward (GradScaler disabled on CPU).
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.SiLU(), nn.Linear(16, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler("cpu", enabled=False)

for i, (x, target) in enumerate([(torch.randn(8, 4), torch.randn(8, 2)) for _ in range(3)]):
    opt.zero_grad(set_to_none=True)
    pred = model(x)
    fit = nn.functional.mse_loss(pred, target)
    smooth = (pred[1:] - pred[:-1]).pow(2).mean()
    (scaler.scale(fit) + scaler.scale(smooth)).backward()
    scaler.step(opt)
    scaler.update()
    print(i, fit.item(), smooth.item())
