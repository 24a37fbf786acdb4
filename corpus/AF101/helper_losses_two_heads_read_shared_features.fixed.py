# A helper returns one loss from each of two heads, but both heads read the same encoder features handed in as an argument; the first backward() frees the encoder's graph that the second still needs.
import torch
import torch.nn as nn
import torch.nn.functional as F


def head_losses(features, policy_head, value_head, target, tag):
    policy_loss = -torch.log_softmax(policy_head(features), dim=-1)[:, 0].mean()
    value_loss = F.mse_loss(value_head(features), target)
    return policy_loss, value_loss


torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(4, 8), nn.Tanh())
policy_head = nn.Linear(8, 2)
value_head = nn.Linear(8, 1)
params = [*encoder.parameters(), *policy_head.parameters(), *value_head.parameters()]
optimizer = torch.optim.SGD(params, lr=0.1)

for step in range(3):
    tag = "step_{}".format(step)
    features = encoder(torch.randn(6, 4))
    policy_loss, value_loss = head_losses(features, policy_head, value_head, torch.randn(6, 1), tag)
    optimizer.zero_grad()
    (policy_loss + value_loss).backward()
    optimizer.step()
    print(tag, policy_loss.item(), value_loss.item())
