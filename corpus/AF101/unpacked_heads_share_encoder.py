# AF101: both heads read one encoding, computed once; the tuple assignment gives each head its own output, but the value head's backward still runs through the encoder graph the policy head's backward freed.
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Linear(4, 8)
policy_head = nn.Linear(8, 2)
value_head = nn.Linear(8, 1)
params = list(encoder.parameters()) + list(policy_head.parameters()) + list(value_head.parameters())
optimizer = torch.optim.SGD(params, lr=0.05)

for _ in range(3):
    states = torch.randn(5, 4)
    encoded = torch.relu(encoder(states))
    logits, value = policy_head(encoded), value_head(encoded)
    policy_loss = -torch.log_softmax(logits, dim=1)[:, 0].mean()
    value_loss = value.pow(2).mean()
    optimizer.zero_grad()
    policy_loss.backward()
    value_loss.backward()
    optimizer.step()
