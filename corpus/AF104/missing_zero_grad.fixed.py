# AF104: a training loop with backward() and step() but no zero_grad() anywhere: gradients pile up across steps.
# autofix-test: unsafe-fixes
import torch
import torch.nn as nn

torch.manual_seed(0)
classifier = nn.Sequential(nn.Linear(6, 6), nn.ReLU(), nn.Linear(6, 2))
optimizer = torch.optim.SGD(classifier.parameters(), lr=0.01)
loss_function = nn.CrossEntropyLoss()
data = [(torch.randn(5, 6), torch.randint(0, 2, (5,))) for _ in range(4)]

for epoch in range(2):
    for features, target in data:
        output = classifier(features)
        loss = loss_function(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch} last loss {loss.item():.4f}")
