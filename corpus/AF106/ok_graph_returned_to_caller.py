# Not AF106: the helper returns the features whose graph it kept; its caller back-propagates them again.
import torch
from torch import nn


def auxiliary_step(backbone, aux_head, x, y):
    features = backbone(x)
    aux_loss = nn.functional.mse_loss(aux_head(features), y)
    aux_loss.backward(retain_graph=True)
    return features


torch.manual_seed(30)
backbone = nn.Sequential(nn.Linear(4, 8), nn.ReLU())
aux_head, main_head = nn.Linear(8, 1), nn.Linear(8, 2)
params = [*backbone.parameters(), *aux_head.parameters(), *main_head.parameters()]
optimizer = torch.optim.SGD(params, lr=0.05)
for step in range(3):
    inputs = torch.randn(9, 4)
    optimizer.zero_grad()
    shared = auxiliary_step(backbone, aux_head, inputs, torch.randn(9, 1))
    main_loss = nn.functional.cross_entropy(main_head(shared), torch.randint(0, 2, (9,)))
    main_loss.backward()
    optimizer.step()
