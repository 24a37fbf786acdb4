# AF104: zero_grad() slipped between backward() and gradient clipping + step() (with an LR scheduler after).
import torch
import torch.nn as nn

torch.manual_seed(0)
lstm = nn.LSTM(4, 8, batch_first=True)
head = nn.Linear(8, 1)
params = list(lstm.parameters()) + list(head.parameters())
optimizer = torch.optim.Adam(params, lr=1e-3)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)

for it in range(4):
    seq = torch.randn(3, 6, 4)
    target = seq.sum(dim=(1, 2)).unsqueeze(-1)
    out, _ = lstm(seq)
    loss = nn.functional.mse_loss(head(out[:, -1]), target)
    loss.backward()
    optimizer.zero_grad()
    torch.nn.utils.clip_grad_norm_(params, max_norm=1.0)
    optimizer.step()
    scheduler.step()
    print(it, loss.item(), scheduler.get_last_lr())
