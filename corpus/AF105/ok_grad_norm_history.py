# OK: gradient norms returned by clip_grad_norm_ (no graph) are appended to a list each step.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(5, 5), nn.ReLU(), nn.Linear(5, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
grad_norms = []
lr_trace = []
for step in range(5):
    optimizer.zero_grad()
    loss = model(torch.randn(4, 5)).pow(2).mean()
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    optimizer.step()
    grad_norms.append(norm)
    lr_trace.append(optimizer.param_groups[0]["lr"])
print(torch.stack(grad_norms).max().item(), lr_trace[-1])
