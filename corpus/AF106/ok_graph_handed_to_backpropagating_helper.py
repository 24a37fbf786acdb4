# Not AF106: after the main backward, the features go into a project helper that back-propagates a
# penalty through them and returns a number. The helper walks the kept graph again, so the flag is
# needed even though the loop keeps only the helper's result.
import torch
import torch.nn as nn

torch.manual_seed(7)
encoder = nn.Linear(4, 4)
optimizer = torch.optim.SGD(encoder.parameters(), lr=0.1)


def smoothness_penalty(features):
    penalty = features.diff(dim=0).pow(2).mean()
    penalty.backward()
    return penalty.item()


for _ in range(3):
    batch = torch.randn(6, 4)
    features = encoder(batch)
    loss = features.abs().mean()
    optimizer.zero_grad()
    loss.backward(retain_graph=True)
    logged = smoothness_penalty(features)
    optimizer.step()
print("trained")
