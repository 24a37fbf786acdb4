# AF105: a metrics dictionary accumulates the loss terms of a two-part objective.
import torch
import torch.nn as nn

torch.manual_seed(0)
backbone = nn.Linear(6, 6)
aux_head = nn.Linear(6, 2)
optimizer = torch.optim.SGD([*backbone.parameters(), *aux_head.parameters()], lr=0.1)

meters = {"main": 0.0, "aux": 0.0}
for batch_idx in range(5):
    x = torch.randn(8, 6)
    y = torch.randint(0, 2, (8,))
    feats = backbone(x)
    main_loss = feats.pow(2).mean()
    aux_loss = nn.functional.cross_entropy(aux_head(feats), y)
    optimizer.zero_grad()
    (main_loss + 0.5 * aux_loss).backward()
    optimizer.step()
    meters["main"] += main_loss
    meters["aux"] += aux_loss
print({name: round(float(total) / 5, 4) for name, total in meters.items()})
