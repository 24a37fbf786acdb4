# ok: the running average is updated under torch.no_grad(), so the arithmetic records no graph.
import torch
import torch.nn as nn

torch.manual_seed(0)

classifier = nn.Linear(5, 3)
optimizer = torch.optim.SGD(classifier.parameters(), lr=0.1)
average = torch.zeros(())
history = []
for step in range(6):
    inputs, labels = torch.randn(12, 5), torch.randint(0, 3, (12,))
    loss = nn.functional.cross_entropy(classifier(inputs), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        average = 0.9 * average + 0.1 * loss
        history.append(loss.clone())
print(float(average), float(torch.stack(history).mean()))
